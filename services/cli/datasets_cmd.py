"""`yardstick datasets push|list|versions|accept|delete`."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from services.cli.api_client import ApiClient, ApiError, segment
from services.cli.consoles import stderr_console, stdout_console
from shared.datasets.files import DatasetFileError, load_dataset_file

app = typer.Typer(help="Versioned datasets: push files, list datasets and versions.")
err = stderr_console()


def push_file(
    client: ApiClient, path: Path, name: str | None = None, merge: bool = False
) -> dict[str, object]:
    """One request: the dataset is created with its first version or not at all."""
    dataset = load_dataset_file(path, name)
    result: dict[str, object] = client.post(
        f"/datasets/{segment(dataset.name)}/items",
        {
            "items": [i.model_dump(mode="json") for i in dataset.items],
            "replace": not merge,
            "source": str(path),
            "create": {"description": dataset.description, "kind": dataset.kind},
        },
    )
    return result


@app.command()
def push(
    paths: list[Path] = typer.Argument(..., help="Dataset files (.yaml/.json/.jsonl) or folders of them"),
    name: str | None = typer.Option(None, help="Dataset name (default: the file's `name`)"),
    merge: bool = typer.Option(
        False, help="Merge by item id into the latest version instead of replacing it"
    ),
) -> None:
    """Validate and upload dataset files; a changed file creates a new version."""
    files = [
        f
        for p in paths
        for f in (sorted(p.rglob("*.y*ml")) + sorted(p.rglob("*.json*")) if p.is_dir() else [p])
    ]
    try:
        client = ApiClient.discover()
        for path in files:
            result = push_file(client, path, name, merge)
            verb = "new version" if result["created_new_version"] else "unchanged"
            err.print(
                f"{path}: [bold]{result['dataset']}[/bold] v{result['version']} ({verb}; "
                f"{result['item_count']} items, +{result['added']} ~{result['changed']} -{result['removed']})"
            )
    except (DatasetFileError, ApiError) as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc


@app.command("list")
def list_() -> None:
    """List datasets with their latest version."""
    try:
        rows = ApiClient.discover().get("/datasets")
    except ApiError as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
    table = Table("name", "kind", "latest", "items", "hash")
    for row in rows:
        latest = row.get("latest_version") or {}
        table.add_row(
            row["name"],
            row["kind"],
            str(latest.get("version", "-")),
            str(latest.get("item_count", 0)),
            str(latest.get("content_hash", ""))[:12],
        )
    stdout_console().print(table)


@app.command()
def versions(name: str) -> None:
    """List a dataset's versions."""
    try:
        rows = ApiClient.discover().get(f"/datasets/{segment(name)}/versions")
    except ApiError as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
    table = Table("version", "items", "status", "hash", "source", "created")
    for row in rows:
        status = row.get("status", "accepted")
        table.add_row(
            str(row["version"]),
            str(row["item_count"]),
            "[yellow]needs review[/yellow]" if status == "needs_review" else status,
            row["content_hash"][:12],
            row["source"],
            row["created_at"],
        )
    stdout_console().print(table)


@app.command()
def accept(name: str, version: int = typer.Argument(..., min=1)) -> None:
    """Accept a version awaiting review (promoted production turns): runs that name no version
    use the newest accepted one."""
    try:
        row = ApiClient.discover().post(f"/datasets/{segment(name)}/versions/{version}/accept", {})
    except ApiError as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
    err.print(f"{name} v{row['version']}: {row['status']} ({row['item_count']} items)")


@app.command()
def delete(name: str) -> None:
    """Delete a dataset with all its versions (refused while an experiment uses it)."""
    try:
        ApiClient.discover().request("DELETE", f"/datasets/{segment(name)}")
    except ApiError as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
    err.print(f"dataset {name} deleted")
