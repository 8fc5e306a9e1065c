"""Live progress of a comparison's pairwise judging (Rich progress bar, drawn from the coordinator's
``judging`` as ``yardstick compare --judge`` polls it)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

if TYPE_CHECKING:
    from yardstick.api.comparisons import ComparisonOut
    from yardstick.api.pairwise import PairwiseJudgeSpec, PairwiseJudging
    from yardstick.client import Client


def compare_judged(
    client: Client,
    console: Console,
    baseline_id: str,
    candidate_id: str,
    judge: PairwiseJudgeSpec,
    **options: object,
) -> ComparisonOut:
    """Compare with ``judge`` and wait for the judging, a bar moving with the judged pairs; the
    comparison when it is over (``judging.status`` done or failed)."""
    columns = (
        TextColumn("[bold]judging pairs"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("judge cache hits {task.fields[hits]} · requests {task.fields[requests]}"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console, transient=False) as progress:
        task = progress.add_task("judging", total=None, hits=0, requests=0)

        def show(judging: PairwiseJudging) -> None:
            progress.update(
                task,
                total=judging.total,
                completed=judging.done,
                hits=judging.judge_cache_hits,
                requests=judging.llm_requests,
            )

        return client.compare(baseline_id, candidate_id, judge=judge, on_progress=show, **options)  # type: ignore[arg-type]
