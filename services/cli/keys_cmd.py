"""`yardstick keys create`: a new API key, printed once."""

from __future__ import annotations

import os

import typer

from services.cli.consoles import stderr_console
from services.stack.state import DEFAULT_STATE_DIR, StackState

app = typer.Typer(help="API keys for the coordinator API.")


@app.command()
def create(name: str = typer.Option("cli", help="A label to recognise the key by")) -> None:
    """Create an API key and print it (only now: it is stored as a keyed hash)."""
    state = StackState.load(DEFAULT_STATE_DIR)
    database_url = os.environ.get("DATABASE_URL") or (state.database_url if state else None)
    secret = os.environ.get("YARDSTICK_API_KEY_SECRET")
    secret_file = DEFAULT_STATE_DIR / "api-key-secret"
    if not secret and secret_file.exists():
        secret = secret_file.read_text().strip()
    if not database_url or not secret:
        stderr_console().print(
            "[red]error:[/red] need the database and the key secret: run inside a `yardstick stack up` "
            "folder, or set DATABASE_URL and YARDSTICK_API_KEY_SECRET"
        )
        raise typer.Exit(2)
    from shared.db.api_keys import create_key_sync  # deferred: SQLAlchemy, psycopg

    print(create_key_sync(database_url, secret, name))
