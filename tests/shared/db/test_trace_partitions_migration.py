"""Migration 0024: the trace tables become day-partitioned with every row moved into its day's
partition (ids and their sequences kept, spans and scores beside their trace), and go down to 0023
and up again with every row kept (without assuming 0024 is the head)."""

from __future__ import annotations

import psycopg
import pytest
from alembic import command

from shared.db.migrate import alembic_config
from shared.db.session import plain_url

pytestmark = pytest.mark.integration

TRACE = (
    "INSERT INTO traces (project_id, trace_id, application, started_at, ended_at, latency_ms, error, "
    "tool_names, span_count, completeness, record, stored_at, updated_at) VALUES ('default', %s, "
    "'app', %s, %s, 1, false, '{}', 1, 'root_ended', '{}', now(), now()) RETURNING id"
)
DAY_TRACE = TRACE.replace("record, stored_at", "record, day, stored_at").replace(
    "'{}', now(), now()", "'{}', %s, now(), now()"
)
SPAN = "INSERT INTO trace_spans (trace_pk, span_id, span) VALUES (%s, %s, '{}')"
SCORE = (
    "INSERT INTO trace_scores (project_id, trace_pk, name, value, metadata, evaluator_version, "
    "application, model, trace_at) VALUES ('default', %s, 'judge', 1, '{}', '1', 'app', 'm', %s)"
)
QUEUE = (
    "INSERT INTO review_queues (id, project_id, name, description, definition, created_at, created_by) "
    "VALUES ('q', 'default', 'q', '', '{}', now(), '')"
)
STARTS = {  # trace id: start (UTC); the second one a second before midnight
    "a" * 32: "2026-11-20 10:00:00+00",
    "b" * 32: "2026-11-27 23:59:59+00",
    "c" * 32: "2026-11-28 00:00:00+00",
}


def _seed(url: str) -> dict[str, int]:
    ids = {}
    with psycopg.connect(plain_url(url)) as conn:
        for trace_id, at in STARTS.items():
            row = conn.execute(TRACE, (trace_id, at, at)).fetchone()
            assert row is not None
            ids[trace_id] = row[0]
            conn.execute(SPAN, (row[0], "0" * 16))
            conn.execute(SPAN, (row[0], "1" * 16))
            conn.execute(SCORE, (row[0], at))
        conn.execute(QUEUE)
        conn.execute(
            "INSERT INTO review_items (queue_id, position, trace_pk) VALUES ('q', 1, %s)", (ids["a" * 32],)
        )
    return ids


def _where(url: str, table: str, key: str) -> dict[int, str]:
    """Each row's ``key`` column and the partition (or table) holding it."""
    with psycopg.connect(plain_url(url)) as conn:
        rows = conn.execute(f"SELECT {key}, tableoid::regclass::text FROM {table}").fetchall()
    return dict(rows)


def _rows(url: str) -> tuple[list[tuple[object, ...]], int, int, list[tuple[object, ...]]]:
    with psycopg.connect(plain_url(url)) as conn:
        traces = conn.execute("SELECT id, trace_id, started_at FROM traces ORDER BY id").fetchall()
        spans = conn.execute("SELECT count(*) FROM trace_spans").fetchone()
        scores = conn.execute("SELECT count(*) FROM trace_scores").fetchone()
        items = conn.execute("SELECT trace_pk FROM review_items").fetchall()
    assert spans is not None and scores is not None
    return traces, spans[0], scores[0], items


def test_0024_moves_every_row_into_its_day_and_goes_down_and_up(database_url: str) -> None:
    config = alembic_config(database_url)
    command.downgrade(config, "0023")
    ids = _seed(database_url)
    before = _rows(database_url)
    command.upgrade(config, "0024")
    assert _rows(database_url) == before
    days = {
        ids["a" * 32]: "traces_p20261120",
        ids["b" * 32]: "traces_p20261127",
        ids["c" * 32]: "traces_p20261128",
    }
    assert _where(database_url, "traces", "id") == days
    spans = _where(database_url, "trace_spans", "id")
    assert sorted(spans.values()) == sorted(
        p.replace("traces", "trace_spans") for p in days.values() for _ in "01"
    )
    assert set(_where(database_url, "trace_scores", "trace_pk").items()) == {
        (pk, p.replace("traces", "trace_scores")) for pk, p in days.items()
    }
    with psycopg.connect(plain_url(database_url)) as conn:  # the id sequence goes on where it was
        at = "2026-11-28 01:00+00"
        row = conn.execute(DAY_TRACE, ("d" * 32, at, at, "2026-11-28")).fetchone()
        assert row is not None and row[0] > max(ids.values())
        conn.rollback()
        with pytest.raises(psycopg.errors.UniqueViolation) as twice:  # one row per trace and day
            conn.execute(DAY_TRACE, ("a" * 32, at, at, "2026-11-20"))
        assert twice.value.diag.constraint_name == "traces_p20261120_project_id_trace_id_day_key"
    command.downgrade(config, "0023")
    assert _rows(database_url) == before
    assert set(_where(database_url, "traces", "id").values()) == {"traces"}
    with psycopg.connect(plain_url(database_url)) as conn, pytest.raises(psycopg.errors.ForeignKeyViolation):
        conn.execute("INSERT INTO review_items (queue_id, position, trace_pk) VALUES ('q', 2, 999999)")
    command.upgrade(config, "head")
    assert _rows(database_url) == before
