"""`yardstick datasets push|list|versions|accept|delete`."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from pydantic import TypeAdapter
from rich.table import Table

from services.cli.consoles import stderr_console, stdout_console
from services.cli.coordinator import ApiError, connect, fail
from shared.datasets.files import DatasetFile, DatasetFileError, load_dataset_file

if TYPE_CHECKING:
    from yardstick.api.datasets import UpsertResult
    from yardstick.client import Client

app = typer.Typer(help="Versioned datasets: push files, list datasets and versions.")
err = stderr_console()


def push_file(client: Client, path: Path, name: str | None = None, merge: bool = False) -> UpsertResult:
    """One request: the dataset is created with its first version or not at all."""
    return _push(client, path, load_dataset_file(path, name), merge)


def _push(client: Client, path: Path, dataset: DatasetFile, merge: bool) -> UpsertResult:
    return client.push_dataset(
        dataset.name,
        dataset.items,
        kind=dataset.kind,
        description=dataset.description,
        replace=not merge,
        source=str(path),
    )


def _iso(value: datetime) -> str:
    """A time as the API writes it (``2026-11-02T10:00:00.123456Z``)."""
    return TypeAdapter(datetime).dump_python(value, mode="json")  # type: ignore[no-any-return]


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
    client: Client | None = None
    try:
        for path in files:
            dataset = load_dataset_file(path, name)  # a file refused before any server is needed
            client = client or connect()
            result = _push(client, path, dataset, merge)
            verb = "new version" if result.created_new_version else "unchanged"
            err.print(
                f"{path}: [bold]{result.dataset}[/bold] v{result.version} ({verb}; "
                f"{result.item_count} items, +{result.added} ~{result.changed} -{result.removed})"
            )
    except (DatasetFileError, ApiError, ValueError) as exc:
        raise fail(exc) from exc


@app.command("list")
def list_() -> None:
    """List datasets with their latest version."""
    try:
        rows = connect().list_datasets()
    except ApiError as exc:
        raise fail(exc) from exc
    table = Table("name", "kind", "latest", "items", "hash")
    for row in rows:
        latest = row.latest_version
        table.add_row(
            row.name,
            row.kind,
            str(latest.version) if latest else "-",
            str(latest.item_count) if latest else "0",
            latest.content_hash[:12] if latest else "",
        )
    stdout_console().print(table)


@app.command()
def versions(name: str) -> None:
    """List a dataset's versions."""
    try:
        rows = connect().dataset_versions(name)
    except ApiError as exc:
        raise fail(exc) from exc
    table = Table("version", "items", "status", "hash", "source", "created")
    for row in rows:
        table.add_row(
            str(row.version),
            str(row.item_count),
            "[yellow]needs review[/yellow]" if row.status == "needs_review" else row.status,
            row.content_hash[:12],
            row.source,
            _iso(row.created_at),
        )
    stdout_console().print(table)


@app.command()
def accept(name: str, version: int = typer.Argument(..., min=1)) -> None:
    """Accept a version awaiting review (promoted production turns): runs that name no version
    use the newest accepted one."""
    try:
        row = connect().accept_dataset_version(name, version)
    except ApiError as exc:
        raise fail(exc) from exc
    err.print(f"{name} v{row.version}: {row.status} ({row.item_count} items)")


@app.command()
def delete(name: str) -> None:
    """Delete a dataset with all its versions (refused while an experiment uses it)."""
    try:
        connect().delete_dataset(name)
    except ApiError as exc:
        raise fail(exc) from exc
    err.print(f"dataset {name} deleted")
