"""Live progress of an experiment (Rich progress bar, drawn from the coordinator's event stream)
and its summary table."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from rich.console import Console, Group, RenderableType
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from yardstick.api.spend import Spend

if TYPE_CHECKING:
    from yardstick.api.experiment_events import ExperimentCounts, ExperimentEvent
    from yardstick.api.experiments import ExperimentOut
    from yardstick.client import Client


def follow(client: Client, experiment_id: str, console: Console, timeout_s: float = 3600.0) -> ExperimentOut:
    """Show a progress bar, moved by the experiment's server-sent events, until it is over; returns
    the final experiment (``TimeoutError`` after ``timeout_s``)."""
    started = time.monotonic()
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("errors {task.fields[errors]}"),
        TextColumn("cached {task.fields[cached]}"),
        TextColumn("{task.fields[throttle]}"),
        TextColumn("{task.fields[rate]:.1f} items/s"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, transient=False) as progress:
        experiment = client.get_experiment(experiment_id)
        task = progress.add_task(
            experiment.name, total=experiment.progress.total, errors=0, cached=0, throttle="", rate=0.0
        )

        def show(p: ExperimentCounts, total: int | None = None) -> None:
            elapsed = max(time.monotonic() - started, 1e-6)
            progress.update(
                task,
                total=total,
                completed=p.done,
                errors=p.errors,
                cached=p.cache_hits,
                throttle=throttle_text(p.throttled, p.target_concurrency),
                rate=p.done / elapsed,
            )

        def on_event(event: ExperimentEvent) -> None:
            show(event, event.total or None)

        show(experiment.progress)
        experiment = client.wait(experiment_id, timeout_s=timeout_s, on_event=on_event)
        show(experiment.progress, experiment.progress.total)
    return experiment


def throttle_text(throttled: int, target_concurrency: int | None) -> str:
    """``throttled 312 · concurrency 24`` once the target has rate-limited the run, else nothing."""
    if not throttled:
        return ""
    return f"throttled {throttled}" + (f" · concurrency {target_concurrency}" if target_concurrency else "")


def _fmt(value: Any) -> str:
    return f"{value:.3f}" if isinstance(value, float) else ("-" if value is None else str(value))


def summary_table(experiment: dict[str, Any]) -> RenderableType:
    """The per-metric table, then the headline lines (items, pass rate and its criteria, latency)."""
    agg = experiment.get("aggregates") or {}
    table = Table(title=f"{experiment['name']} ({experiment['status']}) — {experiment['id']}")
    table.add_column("metric")
    table.add_column("mean", justify="right")
    table.add_column("95% CI", justify="right")
    table.add_column("CI method")
    table.add_column("n", justify="right")
    for name, stats in sorted((agg.get("metrics") or {}).items()):
        ci = f"[{_fmt(stats.get('ci_low'))}, {_fmt(stats.get('ci_high'))}]"
        table.add_row(
            name, _fmt(stats.get("mean")), ci, stats.get("ci_method", "t"), _fmt(stats.get("count"))
        )
    for run_score in agg.get("run_scores") or []:
        if "[" in run_score["name"]:  # per-group breakdown entries: shown in the comparison view
            continue
        table.add_row(f"(run) {run_score['name']}", _fmt(run_score.get("value")), "", "", "")
    p = experiment["progress"]
    latency = agg.get("latency") or {}
    headline = Text.assemble(
        f"items {p['total']} · errors {p['errors']} · cache hits {p.get('cache_hits', 0)} · "
        f"judge cache hits {p.get('judge_cache_hits', 0)} · "
        f"throttled {p.get('throttled', 0)} · "
        f"passed {_fmt(agg.get('passed'))} · "
        f"not measured {_fmt(agg.get('not_measured'))} · ",
        (f"pass rate {_fmt(agg.get('pass_rate'))}", "bold"),
        f"\nan item passes when {_criteria(agg)}\n"
        f"latency p50/p95/p99 {_fmt(latency.get('p50'))}/{_fmt(latency.get('p95'))}/"
        f"{_fmt(latency.get('p99'))} ms",
        _spend_line(agg.get("spend")),
    )
    return Group(table, headline)


def summary_line(experiment: dict[str, Any]) -> Text:
    """One line for a finished run (the demo's): items, errors, pass rate, latency p50."""
    agg = experiment.get("aggregates") or {}
    p = experiment["progress"]
    latency = (agg.get("latency") or {}).get("p50")
    return Text.assemble(
        (experiment["name"], "bold"),
        f": {p['total']} items · errors {p['errors']} · ",
        (f"pass rate {_fmt(agg.get('pass_rate'))}", "bold"),
        f" · latency p50 {_fmt(latency)} ms",
    )


def _spend_line(spend: dict[str, Any] | None) -> str:
    """``LLM tokens 1200 in / 300 out · cost 0.0004 USD`` (``no price`` for unpriced models;
    ``LLM offline model, not billed`` when the offline model made every call)."""
    if not spend:
        return ""
    model = Spend.model_validate(spend)
    if model.offline_only:
        return "\nLLM offline model, not billed"
    return f"\nLLM tokens {model.input_tokens} in / {model.output_tokens} out · cost {model.cost_text}"


def _criteria(aggregates: dict[str, Any]) -> str:
    """``recall@10 >= 0.5 and null_query_correct >= 1`` (the gating metrics' criteria)."""
    gating = [
        f"{metric} {'<=' if c['direction'] == 'lower_is_better' else '>='} {c['threshold']:g}"
        for metric, c in sorted((aggregates.get("pass_criteria") or {}).items())
        if c.get("threshold") is not None
    ]
    return " and ".join(gating) if gating else "(no gating metric was reported)"
