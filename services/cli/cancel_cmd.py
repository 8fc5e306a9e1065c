"""`yardstick cancel ID`: stop dispatching an experiment's items (what is running finishes)."""

from __future__ import annotations

import typer

from services.cli.consoles import stderr_console
from services.cli.coordinator import ApiError, connect, fail
from services.cli.experiment_refs import resolve_experiment


def cancel_command(
    experiment: str = typer.Argument(..., help="Experiment id or name (its newest run)"),
) -> None:
    """Cancel a pending or running experiment; its items scored so far stay in its items page."""
    try:
        client = connect()
        experiment_id = resolve_experiment(client, experiment)
        progress = client.cancel(experiment_id).progress
    except ApiError as exc:
        raise fail(exc) from exc
    stderr_console().print(
        f"experiment {experiment_id} cancelled: {progress.done} of {progress.total} items done, "
        f"{progress.in_flight} still running will be stored when they finish"
    )
