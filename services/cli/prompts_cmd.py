"""`yardstick prompts push|list|show|label`: the prompt registry (versions and movable labels)."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from services.cli.consoles import stderr_console, stdout_console
from services.cli.coordinator import ApiError, connect, fail

app = typer.Typer(
    help="Prompt versions and labels (production, staging, …) the agent runs.", no_args_is_help=True
)
err = stderr_console()


@app.command()
def push(
    path: Path = typer.Argument(..., help="A text file holding the system prompt template"),
    name: str = typer.Option(..., "--name", "-n", help="e.g. drive-thru/orchestrator"),
    label: list[str] = typer.Option([], "--label", "-l", help="Point this label at the pushed version"),
) -> None:
    """Push a template: a new version when it changed; labels move to it."""
    try:
        template = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise fail(ValueError(f"cannot read {path}: {exc}")) from exc
    try:
        row = connect().prompts.push(name, template, labels=label, source=str(path))
    except (ApiError, ValueError) as exc:
        raise fail(exc) from exc
    verb = "new version" if row.created_new_version else "unchanged"
    labels = f" [{', '.join(row.labels)}]" if row.labels else ""
    err.print(f"{row.name} v{row.version} ({verb}){labels}")


@app.command("list")
def list_() -> None:
    """Every prompt with its latest version and where its labels point."""
    try:
        rows = connect().prompts.list()
    except ApiError as exc:
        raise fail(exc) from exc
    table = Table("name", "latest", "labels")
    for row in rows:
        labels = ", ".join(f"{label}→v{version}" for label, version in sorted(row.labels.items()))
        table.add_row(row.name, f"v{row.latest_version}", labels or "-")
    stdout_console().print(table)


@app.command()
def show(ref: str = typer.Argument(..., help="NAME, NAME@LABEL or NAME@VERSION")) -> None:
    """Print the template a reference names now (what the agent would run)."""
    try:
        row = connect().prompts.resolve(ref)
    except ApiError as exc:
        raise fail(exc) from exc
    labels = f" [{', '.join(row.labels)}]" if row.labels else ""
    err.print(f"{row.name} v{row.version}{labels}")
    print(row.template)


@app.command()
def label(
    name: str,
    version: int = typer.Argument(..., min=1),
    label_name: str = typer.Argument(..., metavar="LABEL", help="production, staging, …"),
) -> None:
    """Point LABEL at VERSION (e.g. promote a tested version to production)."""
    try:
        row = connect().prompts.move_label(name, label_name, version)
    except (ApiError, ValueError) as exc:
        raise fail(exc) from exc
    err.print(f"{row.name}@{label_name} → v{row.version}")
