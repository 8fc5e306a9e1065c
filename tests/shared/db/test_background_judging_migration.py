"""Migration 0016: comparisons.judging and the judge_cache.created_at index go down to 0014 and up
again (without assuming 0016 is the head)."""

from __future__ import annotations

import psycopg
import pytest
from alembic import command

from shared.db.migrate import alembic_config
from shared.db.session import plain_url

pytestmark = pytest.mark.integration


def _has(url: str, sql: str, *args: str) -> bool:
    with psycopg.connect(plain_url(url)) as conn:
        return conn.execute(sql, args).fetchone() is not None


def _state(url: str) -> tuple[bool, bool]:
    column = _has(
        url,
        "SELECT 1 FROM information_schema.columns WHERE table_name = %s AND column_name = %s",
        "comparisons",
        "judging",
    )
    index = _has(url, "SELECT 1 FROM pg_indexes WHERE indexname = %s", "ix_judge_cache_created_at")
    return column, index


def test_0016_downgrades_and_upgrades(database_url: str) -> None:
    assert _state(database_url) == (True, True)
    command.downgrade(alembic_config(database_url), "0015")
    assert _state(database_url) == (False, False)
    command.upgrade(alembic_config(database_url), "0016")
    assert _state(database_url) == (True, True)
