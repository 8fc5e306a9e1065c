"""Migration 0020 (span_outbox: OTLP trace exports the agent could not deliver yet) goes down and up
again, whatever revision follows it."""

from __future__ import annotations

import psycopg
import pytest
from alembic import command

from shared.db.migrate import alembic_config, current_revision, head_revision
from shared.db.session import plain_url

pytestmark = pytest.mark.integration


def _columns(url: str) -> set[str]:
    with psycopg.connect(plain_url(url)) as conn:
        rows = conn.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'span_outbox'"
        ).fetchall()
    return {r[0] for r in rows}


def test_0020_downgrades_and_upgrades(database_url: str) -> None:
    assert head_revision() == current_revision(database_url)
    expected = {"id", "body", "spans", "created_at", "attempts", "last_error"}
    assert _columns(database_url) == expected
    command.downgrade(alembic_config(database_url), "0020")
    command.downgrade(alembic_config(database_url), "-1")
    assert not _columns(database_url)
    command.upgrade(alembic_config(database_url), "0020")
    assert _columns(database_url) == expected
    command.upgrade(alembic_config(database_url), "head")
