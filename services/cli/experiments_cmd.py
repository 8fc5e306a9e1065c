"""`yardstick experiments list` and `yardstick items ID`: what has run, and an experiment's items."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import typer
from rich.table import Table

from services.cli.consoles import stderr_console, stdout_console
from services.cli.coordinator import ApiError, connect, fail
from services.cli.experiment_refs import resolve_experiment
from yardstick.api.experiment_status import ExperimentStatus

if TYPE_CHECKING:
    from yardstick.api.experiments import ExperimentOut, ItemsPage

app = typer.Typer(help="List and delete experiments.", no_args_is_help=True)
err = stderr_console()

STATUSES = tuple(ExperimentStatus)


def _rate(value: Any) -> str:
    return "-" if value is None else f"{value:.3f}"


def experiments_table(rows: Sequence[ExperimentOut]) -> Table:
    table = Table(title="Experiments (newest first)", title_justify="left")
    for column, justify in [
        ("id", "left"),
        ("name", "left"),
        ("dataset", "left"),
        ("status", "left"),
        ("items", "right"),
        ("errors", "right"),
        ("pass rate", "right"),
        ("created", "left"),
    ]:
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for r in rows:
        warn = " ⚠" if r.aggregates and r.aggregates.warnings else ""
        table.add_row(
            r.id,
            r.name,
            f"{r.dataset}@{r.dataset_version}",
            r.status + warn,
            str(r.progress.total),
            str(r.progress.errors),
            _rate(r.aggregates.pass_rate if r.aggregates else None),
            r.created_at.strftime("%Y-%m-%d %H:%M:%S"),
        )
    return table


@app.command("list")
def list_command(
    dataset: str | None = typer.Option(None, "--dataset", "-d", help="Only runs on this dataset"),
    status: str | None = typer.Option(
        None, "--status", help="Only runs in this state: " + ", ".join(STATUSES)
    ),
    name: str | None = typer.Option(None, "--name", "-n", help="Only runs of this name"),
    limit: int = typer.Option(20, min=1, max=500, help="At most this many"),
    as_json: bool = typer.Option(False, "--json", help="Print JSON (for scripts)"),
) -> None:
    """Experiments, newest first, with status and pass rate (⚠: the run has warnings)."""
    if status is not None and status not in STATUSES:
        raise typer.BadParameter(f"--status {status!r}: choose one of {', '.join(STATUSES)}")
    try:
        rows = connect().list_experiments(
            dataset=dataset or None,
            status=status or None,  # type: ignore[arg-type]  # checked against STATUSES above
            name=name or None,
            limit=limit,
        )
    except ApiError as exc:
        raise fail(exc) from exc
    if as_json:
        print(json.dumps([row.model_dump(mode="json") for row in rows], indent=2))
    elif not rows:
        err.print("no experiments yet: `yardstick run --dataset NAME --name RUN` starts one")
    else:
        stdout_console().print(experiments_table(rows))


def items_table(page: ItemsPage, title: str) -> Table:
    table = Table(title=title, title_justify="left")
    table.add_column("item", overflow="fold")
    table.add_column("status")
    table.add_column("scores", overflow="fold")
    table.add_column("error / comments", overflow="fold")
    for item in page.items:
        scores = ", ".join(
            f"{s.name}={'-' if s.value is None else format(s.value, '.3g')}" for s in item.scores
        )
        notes = item.error or "; ".join(s.comment for s in item.scores if s.comment)
        trial = f"#{item.trial}" if item.trial else ""
        table.add_row(item.item_id + trial, item.status, scores, notes)
    return table


def items_command(
    experiment: str = typer.Argument(..., help="Experiment id or name (its newest run)"),
    failing: str | None = typer.Option(None, "--failing", help="Only items whose METRIC fails its criterion"),
    errors: bool = typer.Option(False, "--errors", help="Only items whose target call failed"),
    offset: int = typer.Option(0, min=0),
    limit: int = typer.Option(20, min=1, max=1000),
    as_json: bool = typer.Option(False, "--json", help="Print the page as JSON"),
) -> None:
    """An experiment's items with their scores and comments, a page at a time."""
    try:
        client = connect()
        experiment_id = resolve_experiment(client, experiment)
        page = client.items_page(
            experiment_id,
            status="error" if errors else None,
            failing=failing or None,
            offset=offset,
            limit=limit,
        )
    except ApiError as exc:
        raise fail(exc) from exc
    if as_json:
        print(json.dumps(page.model_dump(mode="json"), indent=2))
        return
    shown = f"{offset + 1}-{offset + len(page.items)} of {page.total}" if page.items else "none"
    stdout_console().print(items_table(page, f"Items of {experiment_id} ({shown})"))


@app.command("delete")
def delete_command(
    experiment: str = typer.Argument(..., help="Experiment id or name (its newest run)"),
) -> None:
    """Delete a finished experiment with its items, scores and comparisons (cancel a running one first)."""
    try:
        client = connect()
        experiment_id = resolve_experiment(client, experiment)
        client.delete_experiment(experiment_id)
    except ApiError as exc:
        raise fail(exc) from exc
    err.print(f"experiment {experiment_id} deleted")
