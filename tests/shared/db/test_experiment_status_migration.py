"""Migration 0007 (experiments.status held to the ExperimentStatus values by a CHECK constraint):
a row with another status becomes a failed one that says why; down to 0006 and up again."""

from __future__ import annotations

import psycopg
import pytest
from alembic import command

from shared.db.migrate import alembic_config, current_revision
from shared.db.session import plain_url

pytestmark = pytest.mark.integration


def _insert(url: str, status: str) -> None:
    """An experiment row (with its dataset and version) in ``status``, written as raw SQL."""
    with psycopg.connect(plain_url(url)) as conn:
        conn.execute(
            "INSERT INTO datasets (id, name, description, kind, created_at) "
            "VALUES ('d1', 'd', '', 'generic', now()) ON CONFLICT DO NOTHING"
        )
        conn.execute(
            "INSERT INTO dataset_versions (id, dataset_id, version, content_hash, item_count, source, "
            "created_at) VALUES ('v1', 'd1', 1, 'x', 0, 't', now()) ON CONFLICT DO NOTHING"
        )
        conn.execute(
            "INSERT INTO experiments (id, name, dataset_id, version_id, status, config, total, done, "
            "errors, cache_hits, created_at) VALUES (%s, 'e', 'd1', 'v1', %s, '{}', 0, 0, 0, 0, now())",
            (f"e-{status}", status),
        )


def _row(url: str, experiment_id: str) -> tuple[str, str | None, object]:
    with psycopg.connect(plain_url(url)) as conn:
        found = conn.execute(
            "SELECT status, error, completed_at FROM experiments WHERE id = %s", (experiment_id,)
        ).fetchone()
    assert found is not None
    return found[0], found[1], found[2]


def test_0007_checks_the_status_and_keeps_old_rows_valid(database_url: str) -> None:
    assert current_revision(database_url) >= "0007"
    command.downgrade(alembic_config(database_url), "0007")  # rows below carry no project (0010)
    with pytest.raises(psycopg.errors.CheckViolation):
        _insert(database_url, "pending")

    command.downgrade(alembic_config(database_url), "0006")
    _insert(database_url, "pending")  # no constraint before 0007
    _insert(database_url, "completed")
    command.upgrade(alembic_config(database_url), "0007")

    status, error, completed_at = _row(database_url, "e-pending")
    assert status == "failed" and completed_at is not None
    assert error == "never started (status pending, removed by migration 0007)"
    assert _row(database_url, "e-completed")[:2] == ("completed", None)
    with pytest.raises(psycopg.errors.CheckViolation):
        _insert(database_url, "bogus")
