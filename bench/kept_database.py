"""A benchmark's database kept between runs: filled on the first run of a size, measured again after.

The PostgreSQL server lives under the benchmark's state folder and stops when the script ends; the
database is created and given the default project only when it does not exist yet, and migrated to
the newest schema on every run (a database kept from an older checkout).
"""

from __future__ import annotations

from pathlib import Path

import psycopg

from services.stack.servers import postgres_uri_for, start_postgres
from shared.db.migrate import upgrade_to_head
from shared.db.session import plain_url


def kept_database(state: Path, database: str) -> tuple[str, bool]:
    """The URL of ``database`` on the server under ``state``, and whether it was created now (then
    empty but for the default project: the caller fills it)."""
    uri, _ = start_postgres(state / "pg", keep_running=False)
    with psycopg.connect(plain_url(uri), autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (database,)).fetchone()
        if exists is None:
            conn.execute(f"CREATE DATABASE {database}")
    url = postgres_uri_for(uri, database)
    upgrade_to_head(url)  # a database kept from an older checkout gets the newer migrations
    if exists is None:
        with psycopg.connect(plain_url(url)) as conn:
            conn.execute(
                "INSERT INTO projects (id, description, created_at) VALUES ('default', '', now())"
                " ON CONFLICT DO NOTHING"
            )
            conn.commit()
    return url, exists is None
