"""Migration 0012 (traces, their spans and scores; per-application sampling; drift alerts' application)
goes down to 0011 and up again."""

from __future__ import annotations

import psycopg
import pytest
from alembic import command

from shared.db.migrate import alembic_config, current_revision, head_revision
from shared.db.session import plain_url

pytestmark = pytest.mark.integration


def _columns(url: str, table: str) -> set[str]:
    with psycopg.connect(plain_url(url)) as conn:
        rows = conn.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = %s", (table,)
        ).fetchall()
    return {r[0] for r in rows}


def test_0012_downgrades_and_upgrades(database_url: str) -> None:
    assert head_revision() == current_revision(database_url)
    wanted = {"project_id", "trace_id", "application", "record", "tool_names"}
    assert wanted <= _columns(database_url, "traces")
    command.downgrade(alembic_config(database_url), "0011")
    assert current_revision(database_url) == "0011"
    assert not _columns(database_url, "traces") and not _columns(database_url, "trace_scores")
    assert "applications" not in _columns(database_url, "sampling_config")
    assert "application" not in _columns(database_url, "drift_alerts")
    command.upgrade(alembic_config(database_url), "0012")
    assert {"span_id", "span"} <= _columns(database_url, "trace_spans")
    assert "applications" in _columns(database_url, "sampling_config")
