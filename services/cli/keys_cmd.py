"""`yardstick keys create|list|revoke`: API keys for the coordinator API."""

from __future__ import annotations

import os
from datetime import UTC, datetime

import typer
from rich.table import Table

from services.cli.consoles import stderr_console, stdout_console
from services.cli.coordinator import ApiError, connect, fail, selected_project
from services.stack.state import DEFAULT_STATE_DIR, StackState
from yardstick.api.projects import DEFAULT_PROJECT
from yardstick.api.roles import Role

app = typer.Typer(help="API keys for the coordinator API.")
err = stderr_console()


@app.command()
def create(
    name: str = typer.Option("cli", help="A label to recognise the key by"),
    role: Role = typer.Option(
        Role.RUNNER,
        "--role",
        help="What it may do: owner (everything), admin (everything, keys included), runner (run, "
        "compare, push datasets and prompts, read: a CI job), viewer (read only), ingest (send "
        "production traffic only)",
        case_sensitive=False,
    ),
    expires_in: str | None = typer.Option(
        None, "--expires-in", help="Refuse the key after this long: 30d, 12h, 90m (default: never)"
    ),
    project: str | None = typer.Option(
        None,
        "--project",
        help="The project the key acts in (default: yardstick --project, YARDSTICK_PROJECT, else "
        "'default'); create it first with `yardstick projects create`",
    ),
) -> None:
    """Create an API key and print it (only now: it is stored as a keyed hash). Made on the stack's
    database directly, so it works before any key exists."""
    from yardstick.api.durations import InvalidDuration, parse_duration  # deferred: light, but unused else

    try:
        expires_at = datetime.now(UTC) + parse_duration(expires_in) if expires_in else None
    except InvalidDuration as exc:
        raise typer.BadParameter(str(exc), param_hint="--expires-in") from exc
    state = StackState.load(DEFAULT_STATE_DIR)
    database_url = os.environ.get("DATABASE_URL") or (state.database_url if state else None)
    secret = os.environ.get("YARDSTICK_API_KEY_SECRET")
    secret_file = DEFAULT_STATE_DIR / "api-key-secret"
    if not secret and secret_file.exists():
        secret = secret_file.read_text().strip()
    if not database_url or not secret:
        err.print(
            "[red]error:[/red] need the database and the key secret: run inside a `yardstick stack up` "
            "folder, or set DATABASE_URL and YARDSTICK_API_KEY_SECRET"
        )
        raise typer.Exit(2)
    from shared.db.api_keys import UnknownProject, create_key_sync  # deferred: SQLAlchemy, psycopg

    try:
        key = create_key_sync(
            database_url, secret, name, role, expires_at, project or selected_project() or DEFAULT_PROJECT
        )
    except UnknownProject as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
    print(key)


def _when(value: datetime | None) -> str:
    return "-" if value is None else value.strftime("%Y-%m-%d %H:%M")


@app.command("list")
def list_() -> None:
    """Every key: its prefix, label, when it was created and last used, expiry, state."""
    try:
        rows = connect().keys.list()
    except ApiError as exc:
        raise fail(exc) from exc
    table = Table("prefix", "name", "role", "project", "created", "last used", "expires", "state", "id")
    for row in rows:
        state = "active" if row.active else ("revoked" if row.revoked_at else "expired")
        table.add_row(
            row.prefix,
            row.name,
            row.role,
            row.project,
            _when(row.created_at),
            _when(row.last_used_at),
            _when(row.expires_at),
            state,
            row.id,
        )
    stdout_console().print(table)


@app.command()
def revoke(key: str = typer.Argument(..., help="The key's id or prefix (see `yardstick keys list`)")) -> None:
    """Revoke a key: requests with it are refused from now on."""
    try:
        connect().keys.revoke(key)
    except ApiError as exc:
        raise fail(exc) from exc
    err.print(f"key {key} revoked")
