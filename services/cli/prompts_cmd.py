"""`yardstick prompts push|list|show|label`: the prompt registry (versions and movable labels)."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from services.cli.api_client import ApiClient, ApiError, segment
from services.cli.consoles import stderr_console, stdout_console

app = typer.Typer(
    help="Prompt versions and labels (production, staging, …) the agent runs.", no_args_is_help=True
)
err = stderr_console()


def _fail(exc: Exception) -> typer.Exit:
    err.print(f"[red]error:[/red] {exc}")
    return typer.Exit(2)


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
        raise _fail(ValueError(f"cannot read {path}: {exc}")) from exc
    try:
        row = ApiClient.discover().post(
            "/prompts", {"name": name, "template": template, "labels": label, "source": str(path)}
        )
    except ApiError as exc:
        raise _fail(exc) from exc
    verb = "new version" if row["created_new_version"] else "unchanged"
    labels = f" [{', '.join(row['labels'])}]" if row["labels"] else ""
    err.print(f"{row['name']} v{row['version']} ({verb}){labels}")


@app.command("list")
def list_() -> None:
    """Every prompt with its latest version and where its labels point."""
    try:
        rows = ApiClient.discover().get("/prompts")
    except ApiError as exc:
        raise _fail(exc) from exc
    table = Table("name", "latest", "labels")
    for row in rows:
        labels = ", ".join(f"{label}→v{version}" for label, version in sorted(row["labels"].items()))
        table.add_row(row["name"], f"v{row['latest_version']}", labels or "-")
    stdout_console().print(table)


@app.command()
def show(ref: str = typer.Argument(..., help="NAME, NAME@LABEL or NAME@VERSION")) -> None:
    """Print the template a reference names now (what the agent would run)."""
    try:
        row = ApiClient.discover().get("/prompts/resolve", params={"ref": ref})
    except ApiError as exc:
        raise _fail(exc) from exc
    labels = f" [{', '.join(row['labels'])}]" if row["labels"] else ""
    err.print(f"{row['name']} v{row['version']}{labels}")
    print(row["template"])


@app.command()
def label(
    name: str,
    version: int = typer.Argument(..., min=1),
    label_name: str = typer.Argument(..., metavar="LABEL", help="production, staging, …"),
) -> None:
    """Point LABEL at VERSION (e.g. promote a tested version to production)."""
    try:
        row = (
            ApiClient.discover()
            .request(
                "PUT", f"/prompts/{segment(name)}/labels/{segment(label_name)}", json={"version": version}
            )
            .json()
        )
    except ApiError as exc:
        raise _fail(exc) from exc
    err.print(f"{row['name']}@{label_name} → v{row['version']}")
