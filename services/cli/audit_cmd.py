"""`yardstick audit`: who changed what (an admin key)."""

from __future__ import annotations

import json

import typer
from rich.table import Table

from services.cli.consoles import stdout_console
from services.cli.coordinator import ApiError, connect, fail
from yardstick.api.audit import AuditAction


def audit_command(
    action: AuditAction | None = typer.Option(None, "--action", help="Only this kind of change"),
    object_id: str | None = typer.Option(None, "--object", help="Only changes of this object (id or name)"),
    limit: int = typer.Option(50, min=1, max=1000, help="How many, newest first"),
) -> None:
    """Recorded changes, newest first: key creations and revocations, deletes, prompt label moves,
    online config changes, promotions and dataset versions accepted, with the key that made them."""
    try:
        entries = connect().audit(action=action, object_id=object_id, limit=limit)
    except ApiError as exc:
        raise fail(exc) from exc
    table = Table("when", "key", "action", "object", "change")
    for e in entries:
        change = {k: v for k, v in e.change.model_dump(exclude={"schema_version"}).items() if v is not None}
        table.add_row(
            e.at.strftime("%Y-%m-%d %H:%M:%S"),
            f"{e.actor.key_name} ({e.actor.key_prefix})",
            e.action,
            f"{e.object_kind} {e.object_id}",
            json.dumps(change, default=str) if change else "",
        )
    stdout_console().print(table if entries else "no recorded changes")
