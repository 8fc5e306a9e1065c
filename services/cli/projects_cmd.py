"""`yardstick projects create|list`: the spaces datasets, experiments, prompts, traffic and keys
belong to."""

from __future__ import annotations

import typer
from rich.table import Table

from services.cli.consoles import stderr_console, stdout_console
from services.cli.coordinator import ApiError, connect, fail

app = typer.Typer(
    help="Projects: a team's or an application's own datasets, runs, prompts, traffic and keys."
)
err = stderr_console()


@app.command()
def create(
    name: str = typer.Argument(..., help="Lower-case letters, digits, '-' and '_' (it is also the id)"),
    description: str = typer.Option("", help="What the project is for"),
) -> None:
    """Create a project (owner key). Then give it keys: yardstick keys create --project NAME --role …"""
    try:
        row = connect().projects.create(name, description)
    except ApiError as exc:
        raise fail(exc) from exc
    err.print(
        f"project [bold]{row.name}[/bold] created; its first admin key: "
        f"yardstick keys create --project {row.name} --role admin"
    )


@app.command("list")
def list_() -> None:
    """The projects this key may act in (every project, for an owner key)."""
    try:
        rows = connect().projects.list()
    except ApiError as exc:
        raise fail(exc) from exc
    table = Table("name", "description", "created")
    for row in rows:
        table.add_row(row.name, row.description, row.created_at.strftime("%Y-%m-%d %H:%M"))
    stdout_console().print(table)
