"""`yardstick traces list|show`: the sampled OpenTelemetry traces of this project's applications."""

from __future__ import annotations

from datetime import UTC, datetime

import typer

from services.cli.consoles import stdout_console
from services.cli.coordinator import ApiError, connect, fail
from services.cli.traces_view import trace_view, traces_table
from yardstick.api.durations import parse_moment

app = typer.Typer(help="Sampled traces of your applications: list them, read one whole.")


@app.command("list")
def list_command(
    service: str | None = typer.Option(None, "--service", "--application", help="Only this application"),
    since: str | None = typer.Option(None, help="Started since: a duration back from now (1h, 7d) or ISO"),
    errors: bool = typer.Option(False, "--errors", help="Only traces with a failed span"),
    model: str | None = typer.Option(None, help="Only traces whose last LLM call used this model"),
    limit: int = typer.Option(20, min=1, max=500, help="How many, newest first"),
) -> None:
    """Sampled traces, newest first, with their scores."""
    try:
        started = None if since is None else parse_moment(since, datetime.now(UTC))
        page = connect().traces.list(
            service=service, model=model, since=started, error=True if errors else None, limit=limit
        )
    except (ApiError, ValueError) as exc:
        raise fail(exc) from exc
    stdout_console().print(traces_table(page))


@app.command("show")
def show_command(
    trace_id: str = typer.Argument(..., help="32 hex digits (see `yardstick traces list`)"),
) -> None:
    """One trace: span tree, messages, tool calls, tokens, scores."""
    try:
        trace = connect().traces.get(trace_id.lower())
    except ApiError as exc:
        raise fail(exc) from exc
    stdout_console().print(trace_view(trace))
