"""Migration 0021 (one online path) drops the old turn path's tables, ``review_items.sample_id`` and the
review queues made from sampled turns, keeping every other queue; going down recreates them empty."""

from __future__ import annotations

import psycopg
import pytest
from alembic import command

from shared.db.migrate import alembic_config, current_revision, head_revision
from shared.db.session import plain_url
from tests.shared.db.schema_facts import table_columns, table_names

pytestmark = pytest.mark.integration

OLD_TABLES = {"online_samples", "online_scores", "traffic_outbox"}
QUEUE = (
    "INSERT INTO review_queues (id, project_id, name, description, definition, created_at, created_by) "
    "VALUES (%s, 'default', %s, '', %s, now(), '')"
)
SAMPLE = (
    "INSERT INTO online_samples (project_id, conversation_id, turn_index, model, prompt_version, turn, "
    "turn_at, sampled_at) VALUES ('default', 'c', 0, 'm', 'v1', '{}', now(), now()) RETURNING id"
)

ITEM = "INSERT INTO review_items (queue_id, position, sample_id) VALUES ('turns', 1, %s)"


def _tables(url: str) -> set[str]:
    return table_names(url)


def _item_columns(url: str) -> set[str]:
    return table_columns(url, "review_items")


def test_0021_drops_the_turn_path_and_goes_down_again(database_url: str) -> None:
    assert head_revision() == current_revision(database_url)
    assert not OLD_TABLES & _tables(database_url)
    assert "sample_id" not in _item_columns(database_url)
    command.downgrade(alembic_config(database_url), "0020")
    assert _tables(database_url) >= OLD_TABLES and "sample_id" in _item_columns(database_url)
    with psycopg.connect(plain_url(database_url)) as conn:
        conn.execute(QUEUE, ("turns", "turns", '{"source": {"kind": "online"}}'))
        conn.execute(QUEUE, ("traces", "traces", '{"source": {"kind": "traces", "application": "a"}}'))
        sample_id = conn.execute(SAMPLE).fetchone()[0]  # type: ignore[index]
        conn.execute(
            "INSERT INTO review_items (queue_id, position, sample_id) VALUES ('turns', 1, %s)", (sample_id,)
        )
        conn.commit()
    command.upgrade(alembic_config(database_url), "0021")
    assert not OLD_TABLES & _tables(database_url)
    with psycopg.connect(plain_url(database_url)) as conn:
        assert conn.execute("SELECT id FROM review_queues ORDER BY id").fetchall() == [("traces",)]
        assert conn.execute("SELECT count(*) FROM review_items").fetchone() == (0,)
        with pytest.raises(psycopg.errors.CheckViolation):  # an item must point at something
            conn.execute("INSERT INTO review_items (queue_id, position) VALUES ('traces', 1)")
    command.downgrade(alembic_config(database_url), "0020")
    assert _tables(database_url) >= OLD_TABLES
    command.upgrade(alembic_config(database_url), "head")
    assert "sample_id" not in _item_columns(database_url)
