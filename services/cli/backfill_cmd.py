"""`yardstick online backfill --since 7d -e NAME[:JSON_ARGS] ...`: run evaluators over the stored
traces of a time window (so a new evaluator has history on day one), with a progress bar. Running
it again writes nothing new: a score already present for a trace and metric is kept.

Exit codes: 0 done, 2 a usage error or refused request (an unknown evaluator, a bad window),
3 the job failed."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from services.cli.consoles import stderr_console, stdout_console
from services.cli.coordinator import ApiError, connect, fail
from yardstick.api.evaluation import EvaluatorSpec
from yardstick.api.traces import BackfillOut

if TYPE_CHECKING:
    from yardstick.client import Client

POLL_S = 0.5


def follow_backfill(client: Client, job: BackfillOut, timeout_s: float = 24 * 3600.0) -> BackfillOut:
    """A progress bar, moved by the job's progress, until it is over."""
    deadline = time.monotonic() + timeout_s
    columns = (
        TextColumn("[bold]backfill"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("written {task.fields[written]}"),
        TextColumn("kept {task.fields[kept]}"),
        TextColumn("not measured {task.fields[not_measured]}"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=stderr_console()) as progress:
        task = progress.add_task("backfill", total=job.total, written=0, kept=0, not_measured=0)
        while True:
            progress.update(
                task,
                total=max(job.total, job.done),
                completed=job.done,
                written=job.written,
                kept=job.kept,
                not_measured=job.not_measured,
            )
            if job.status != "running" or time.monotonic() > deadline:
                return job
            time.sleep(POLL_S)
            job = client.traces.backfill_progress(job.id)


def backfill_command(
    evaluator: list[str] = typer.Option(..., "--evaluator", "-e", help="NAME[:JSON_ARGS] (repeatable)"),
    since: str = typer.Option(..., help="Window start: a duration back from now (7d, 12h) or an ISO time"),
    until: str | None = typer.Option(None, help="Window end (same forms); default: now"),
    application: str | None = typer.Option(
        None, "--application", "--service", help="Only this application (service.name)"
    ),
) -> None:
    """Run evaluators over the stored traces of a time window; scores already present are kept."""
    err = stderr_console()
    try:
        specs = [EvaluatorSpec.parse(e) for e in evaluator]
        client = connect()
        job = client.traces.backfill(specs, since=since, until=until, application=application)
        err.print(
            f"backfill [bold]{job.id}[/bold]: {job.total} traces started "
            f"{job.since:%Y-%m-%d %H:%M} to {job.until:%Y-%m-%d %H:%M} UTC"
        )
        job = follow_backfill(client, job)
    except (ApiError, ValueError) as exc:
        raise fail(exc) from exc
    out = stdout_console()
    out.print(
        f"{job.status}: {job.done} traces, {job.written} scores written, {job.kept} already present (kept), "
        f"{job.not_measured} not measured"
    )
    for metric, reason in job.not_measured_reasons.items():
        out.print(f"  {metric} not measured on some traces: {reason}")
    if job.status == "failed":
        err.print(f"[red]backfill failed:[/red] {job.error}")
        raise typer.Exit(3)
    if job.status == "running":
        err.print(f"still running; see its progress: GET /traces/backfill/{job.id}")
