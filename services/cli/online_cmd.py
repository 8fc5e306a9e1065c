"""`yardstick online config|metrics|alerts|traces|backfill`: production traffic sampling."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import typer
from rich import box
from rich.table import Table

from services.cli.consoles import stderr_console, stdout_console
from services.cli.coordinator import ApiError, connect, fail
from services.cli.key_values import parse_key_values

if TYPE_CHECKING:
    from yardstick.api.online import DriftAlertOut, OnlineMetrics
    from yardstick.client import Client

app = typer.Typer(help="Production traffic sampling: config, online metrics, drift alerts, sampled traces.")
out = stdout_console()
err = stderr_console()


def _client() -> Client:
    try:
        return connect()
    except ApiError as exc:
        raise fail(exc) from exc


def _fmt(value: Any) -> str:
    return "—" if value is None else f"{value:.3f}" if isinstance(value, float) else str(value)


def updated_config(
    current: dict[str, Any],
    *,
    rate: float | None,
    cap: int | None,
    no_cap: bool,
    evaluators: list[str] | None,
    model: str | None,
    prompt_version: str | None,
    finalized: bool | None,
    metadata: list[str] | None,
    clear_filters: bool,
) -> dict[str, Any]:
    """The current config with the given options applied (options left out keep their value)."""
    body = dict(current)
    body.pop("updated_at", None)
    filters: dict[str, Any] = {} if clear_filters else dict(body.get("filters") or {})
    if rate is not None:
        body["rate"] = rate
    if no_cap:
        body["cap_per_minute"] = None
    elif cap is not None:
        body["cap_per_minute"] = cap
    if evaluators:
        body["evaluators"] = [{"name": name} for name in evaluators]
    for key, value in (("model", model), ("prompt_version", prompt_version), ("finalized", finalized)):
        if value is not None:
            filters[key] = value
    if metadata:
        filters["metadata"] = dict(filters.get("metadata") or {}) | parse_key_values(metadata, "--metadata")
    body["filters"] = filters
    return body


@app.command()
def config(
    rate: float | None = typer.Option(None, help="Fraction of conversations sampled, 0 to 1"),
    cap: int | None = typer.Option(None, help="At most this many sampled turns per minute"),
    no_cap: bool = typer.Option(False, "--no-cap", help="Remove the per-minute cap"),
    evaluator: list[str] | None = typer.Option(
        None, help="Reference-free evaluator (repeat); replaces the list"
    ),
    model: str | None = typer.Option(None, help="Filter: only this model identity, e.g. offline:ask"),
    prompt_version: str | None = typer.Option(None, help="Filter: only this prompt version"),
    finalized: bool | None = typer.Option(None, "--finalized/--open", help="Filter: finalized or open turns"),
    metadata: list[str] | None = typer.Option(None, help="Filter: KEY=VALUE on turn metadata (repeat)"),
    clear_filters: bool = typer.Option(False, help="Drop existing filters before applying these"),
) -> None:
    """Show the sampling config; with options, change it (the sampler picks it up within seconds)."""
    client = _client()
    try:
        current = client.online.config()
        changes = (rate, cap, evaluator, model, prompt_version, finalized, metadata)
        if any(v is not None and v != [] for v in changes) or no_cap or clear_filters:
            body = updated_config(
                current,
                rate=rate,
                cap=cap,
                no_cap=no_cap,
                evaluators=evaluator,
                model=model,
                prompt_version=prompt_version,
                finalized=finalized,
                metadata=metadata,
                clear_filters=clear_filters,
            )
            current = client.online.set_config(body)
    except ApiError as exc:
        raise fail(exc) from exc
    out.print_json(json.dumps(current))


@app.command()
def metrics(
    window: str = typer.Option("1h", help="How far back, e.g. 30m, 1h, 7d"),
    bucket: str = typer.Option("5m", help="Bucket width"),
) -> None:
    """Online scores: mean and 95% CI per evaluator, model and prompt version, per time bucket."""
    client = _client()
    try:
        data = client.online.metrics(window=window, bucket=bucket)
    except ApiError as exc:
        raise fail(exc) from exc
    if not data.series:
        err.print(f"no online scores in the last {window}")
        return
    out.print(metrics_table(data, window, bucket))


def metrics_table(data: OnlineMetrics, window: str, bucket: str) -> Table:
    """A ``GET /online/metrics`` answer as a table: one row per evaluator, model and prompt version."""
    table = Table(title=f"Online metrics, last {window} ({bucket} buckets)", box=box.SIMPLE_HEAD)
    table.add_column("evaluator", no_wrap=True)
    for column in ("source", "n", "mean", "95% CI", "trend"):
        table.add_column(column)
    for s in data.series:
        ci = f"[{_fmt(s.ci_low)}, {_fmt(s.ci_high)}]"
        trend = " ".join(f"{b.mean:.2f}" for b in s.buckets[-12:])
        source = series_source(s.model, s.prompt_version, s.application)
        table.add_row(s.evaluator, source, str(s.n), _fmt(s.mean), ci, trend)
    return table


def series_source(model: str, prompt_version: str, application: str | None) -> str:
    """Where a series' scores come from: ``application: model`` (traces); ``model@prompt`` for an alert
    raised on the agent's turns before traces (no application)."""
    return f"{application}: {model}" if application else f"{model}@{prompt_version}"


@app.command()
def alerts(limit: int = typer.Option(20, help="Most recent alerts to show")) -> None:
    """Drift alerts raised by the sampler, newest first."""
    client = _client()
    try:
        rows = client.online.alerts(limit=limit)
    except ApiError as exc:
        raise fail(exc) from exc
    out.print(alerts_table(rows))


def alerts_table(rows: Sequence[DriftAlertOut]) -> Table:
    """``GET /online/alerts`` rows as a table, newest first."""
    table = Table(title="Drift alerts", box=box.SIMPLE_HEAD)
    for column in ("created (UTC)", "evaluator", "source", "vs", "ref", "now", "Δ", "p"):
        table.add_column(column, no_wrap=column == "evaluator")
    for a in rows:
        d = a.detail
        table.add_row(
            a.created_at.strftime("%H:%M:%S"),
            a.evaluator,
            series_source(a.model, a.prompt_version, a.application),
            a.reference,
            _fmt(d.get("reference_mean")),
            _fmt(d.get("window_mean")),
            _fmt(d.get("delta")),
            f"{d['p_value']:.2g}" if d.get("p_value") is not None else "—",
        )
    return table


@app.command()
def traces(
    service: str | None = typer.Option(None, help="Only this application (service.name), e.g. drive-thru"),
    limit: int = typer.Option(20, min=1, max=500, help="Most recent sampled traces to show"),
) -> None:
    """Recently sampled traces with their online scores (the drive-thru agent's are ``drive-thru``)."""
    client = _client()
    try:
        page = client.online.traces(service=service, limit=limit)
    except ApiError as exc:
        raise fail(exc) from exc
    table = Table(title=f"Sampled traces ({page.counted} in all)", box=box.SIMPLE_HEAD)
    for column in ("started (UTC)", "application", "conversation", "model", "tools", "tokens", "scores"):
        table.add_column(column)
    for t in page.items:
        scores = " ".join(f"{name}={_fmt(value)}" for name, value in sorted(t.scores.items()))
        table.add_row(
            t.started_at.strftime("%H:%M:%S"),
            t.application,
            (t.conversation_id or "—")[:12],
            t.model or "—",
            ",".join(t.tool_names),
            str(t.total_tokens) if t.total_tokens is not None else "—",
            scores,
        )
    out.print(table)
