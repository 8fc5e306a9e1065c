"""Migration 0006 (output cache, recorded outputs, cache hits) goes down to 0005 and up again."""

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


def test_0006_downgrades_and_upgrades(database_url: str) -> None:
    assert head_revision() == current_revision(database_url)
    assert {"cache_key", "recorded"} <= _columns(database_url, "experiment_items")
    command.downgrade(alembic_config(database_url), "0005")
    assert current_revision(database_url) == "0005"
    assert not _columns(database_url, "output_cache")
    assert "cache_hits" not in _columns(database_url, "experiments")
    command.upgrade(alembic_config(database_url), "0006")
    assert {"key", "output", "expires_at"} <= _columns(database_url, "output_cache")
    assert "cache_hits" in _columns(database_url, "experiments")
