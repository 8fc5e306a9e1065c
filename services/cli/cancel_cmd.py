"""`yardstick cancel ID`: stop dispatching an experiment's items (what is running finishes)."""

from __future__ import annotations

import typer

from services.cli.api_client import ApiClient, ApiError
from services.cli.consoles import stderr_console
from services.cli.experiment_refs import resolve_experiment


def cancel_command(
    experiment: str = typer.Argument(..., help="Experiment id or name (its newest run)"),
) -> None:
    """Cancel a pending or running experiment; its items scored so far stay in its items page."""
    err = stderr_console()
    try:
        client = ApiClient.discover()
        experiment_id = resolve_experiment(client, experiment)
        cancelled = client.post(f"/experiments/{experiment_id}/cancel", {})
    except ApiError as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
    progress = cancelled["progress"]
    err.print(
        f"experiment {experiment_id} cancelled: {progress['done']} of {progress['total']} items done, "
        f"{progress.get('in_flight', 0)} still running will be stored when they finish"
    )
