"""Migration 0015 (a review item may point at a trace; exactly one reference set) goes down to 0014,
dropping the trace items, and up again; the CHECK refuses an item with none or two references."""

from __future__ import annotations

import psycopg
import pytest
from alembic import command

from shared.db.migrate import alembic_config, current_revision
from shared.db.session import plain_url

pytestmark = pytest.mark.integration

QUEUE = (
    "INSERT INTO review_queues (id, project_id, name, description, definition, created_at, created_by) "
    "VALUES ('q', 'default', 'q', '', '{}', now(), '')"
)
TRACE = (
    "INSERT INTO traces (project_id, trace_id, application, started_at, ended_at, latency_ms, error, "
    "tool_names, span_count, completeness, record, stored_at, updated_at) VALUES ('default', %s, "
    "'app', now(), now(), 1, false, '{}', 1, 'root_ended', '{}', now(), now()) RETURNING id"
)


def _columns(url: str) -> set[str]:
    with psycopg.connect(plain_url(url)) as conn:
        rows = conn.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'review_items'"
        ).fetchall()
    return {r[0] for r in rows}


def _item(url: str, position: int, trace_pk: int | None, sample_id: int | None = None) -> None:
    with psycopg.connect(plain_url(url)) as conn:
        conn.execute(
            "INSERT INTO review_items (queue_id, position, trace_pk, sample_id) VALUES ('q', %s, %s, %s)",
            (position, trace_pk, sample_id),
        )


def test_0015_downgrades_and_upgrades(database_url: str) -> None:
    command.downgrade(alembic_config(database_url), "0015")  # whatever follows it, start from 0015
    assert "trace_pk" in _columns(database_url)
    with psycopg.connect(plain_url(database_url)) as conn:
        conn.execute(QUEUE)
        trace_pk = conn.execute(TRACE, ("a" * 32,)).fetchone()[0]  # type: ignore[index]
        conn.commit()
    _item(database_url, 1, trace_pk)
    with pytest.raises(psycopg.errors.CheckViolation):
        _item(database_url, 2, None)  # points at nothing
    command.downgrade(alembic_config(database_url), "0014")
    assert current_revision(database_url) == "0014"
    assert "trace_pk" not in _columns(database_url)
    with psycopg.connect(plain_url(database_url)) as conn:
        assert conn.execute("SELECT count(*) FROM review_items").fetchone() == (0,)
    command.upgrade(alembic_config(database_url), "0015")
    assert "trace_pk" in _columns(database_url)
    _item(database_url, 3, trace_pk)
    with psycopg.connect(plain_url(database_url)) as conn:
        row = conn.execute("SELECT conname FROM pg_constraint WHERE conname LIKE '%one_source%'").fetchall()
    assert len(row) == 1  # the old CHECK was replaced, not joined by a second one
