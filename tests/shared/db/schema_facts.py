"""What a migration test reads of the schema it left: the tables there are, one table's columns."""

from __future__ import annotations

import psycopg

from shared.db.session import plain_url


def table_names(url: str) -> set[str]:
    with psycopg.connect(plain_url(url)) as conn:
        rows = conn.execute("SELECT table_name FROM information_schema.tables").fetchall()
    return {r[0] for r in rows}


def table_columns(url: str, table: str) -> set[str]:
    with psycopg.connect(plain_url(url)) as conn:
        query = "SELECT column_name FROM information_schema.columns WHERE table_name = %s"
        rows = conn.execute(query, (table,)).fetchall()
    return {r[0] for r in rows}
