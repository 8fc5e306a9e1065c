"""`yardstick cancel ID`: stop dispatching an experiment's items (what is running finishes)."""

from __future__ import annotations

import typer

from services.cli.api_client import ApiClient, ApiError
from services.cli.consoles import stderr_console


def cancel_command(experiment_id: str = typer.Argument(..., help="Experiment id")) -> None:
    """Cancel a pending or running experiment; its items scored so far stay in its items page."""
    err = stderr_console()
    try:
        experiment = ApiClient.discover().post(f"/experiments/{experiment_id}/cancel", {})
    except ApiError as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
    progress = experiment["progress"]
    err.print(
        f"experiment {experiment_id} cancelled: {progress['done']} of {progress['total']} items done, "
        f"{progress.get('in_flight', 0)} still running will be stored when they finish"
    )
