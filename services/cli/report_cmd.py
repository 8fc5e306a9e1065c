"""`yardstick report ID`: an experiment's report as markdown, JSON (exportable) or JUnit."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import typer

from services.cli.consoles import stderr_console
from services.cli.coordinator import ApiError, connect, fail
from services.cli.experiment_refs import resolve_experiment


def report_command(
    experiment: str = typer.Argument(..., help="Experiment id or name (its newest run)"),
    format: Literal["md", "json", "junit"] = typer.Option("md", "--format", "-f"),
    output: Path | None = typer.Option(None, "--output", "-o", help="Write to this file instead of stdout"),
) -> None:
    """Print (or save) an experiment's report; the JSON form can be fed to `yardstick compare`."""
    try:
        client = connect()
        experiment_id = resolve_experiment(client, experiment)
        body = client.report_text(experiment_id, format)
    except ApiError as exc:
        raise fail(exc) from exc
    if output:
        try:
            output.write_text(body)
        except OSError as exc:
            stderr_console().print(f"[red]error:[/red] cannot write {output}: {exc.strerror}")
            raise typer.Exit(2) from exc
    else:
        print(body)
