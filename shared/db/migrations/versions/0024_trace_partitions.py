"""trace partitions: ``traces``, ``trace_spans`` and ``trace_scores`` become range-partitioned by day

Each table gets a ``day`` column (DATE, the partition key: the UTC day of the trace's start when it
was first stored, copied into its spans and scores) and one partition per day (``<table>_pYYYYMMDD``)
plus a default partition (``<table>_default``). Keys that change, as PostgreSQL requires the partition
key in every primary key and unique constraint of a partitioned table:

- ``traces``: primary key ``(id, day)``; unique ``(project_id, trace_id, day)`` (was
  ``(project_id, trace_id)``: the sampler keeps one row per trace with an advisory lock per trace).
- ``trace_spans``: primary key ``(id, day)``; unique ``(trace_pk, span_id, day)``; the foreign key to
  the trace is ``(trace_pk, day)`` -> ``traces (id, day)``, on delete cascade.
- ``trace_scores``: primary key ``(id, day)``; unique ``(trace_pk, name, day)``; the same foreign key.
- ``review_items.trace_pk`` loses its foreign key (a partitioned table is referenced by its whole
  key): retention deletes the review items of the traces it drops.

New indexes for the trace list: ``(project_id, started_at, id)`` (the newest first),
``(project_id, model, started_at)``, and ``trace_scores (name, value)`` (the ``below`` filter).

Every row is moved (ids kept, the id sequences kept); partitions are created for every day that has
rows and for today up to 7 days ahead (the sampler's maintenance creates the next ones). Going down
moves the rows back into plain tables with the keys of 0023 (a review item whose trace is gone is
deleted, as the foreign key it gets back would refuse it).

Revision ID: 0024
Revises: 0023
Create Date: 2026-11-28 12:00:00
"""

from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta

import sqlalchemy as sa
from alembic import op

revision: str = "0024"
down_revision: str | None = "0023"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

AHEAD_DAYS = 7
TABLES = ("traces", "trace_spans", "trace_scores")
REVIEW_FK = "fk_review_items_trace_pk_traces"
_PROJECT_FK = "FOREIGN KEY (project_id) REFERENCES projects (id) ON DELETE RESTRICT"
_TRACE_FK = "FOREIGN KEY (trace_pk, day) REFERENCES traces (id, day) ON DELETE CASCADE"
_PLAIN_TRACE_FK = "FOREIGN KEY (trace_pk) REFERENCES traces (id) ON DELETE CASCADE"

PARTITIONED: dict[str, tuple[list[str], list[str]]] = {
    # table: (constraints "name definition", indexes "name columns")
    "traces": (
        [
            "pk_traces PRIMARY KEY (id, day)",
            "uq_traces_project_id_trace_id_day UNIQUE (project_id, trace_id, day)",
            f"fk_traces_project_id_projects {_PROJECT_FK}",
        ],
        [
            "ix_traces_project_started (project_id, started_at, id)",
            "ix_traces_project_app_started (project_id, application, started_at)",
            "ix_traces_project_model_started (project_id, model, started_at)",
            "ix_traces_started_at (started_at)",
        ],
    ),
    "trace_spans": (
        [
            "pk_trace_spans PRIMARY KEY (id, day)",
            "uq_trace_spans_trace_pk_span_id_day UNIQUE (trace_pk, span_id, day)",
            f"fk_trace_spans_trace_pk_traces {_TRACE_FK}",
        ],
        [],
    ),
    "trace_scores": (
        [
            "pk_trace_scores PRIMARY KEY (id, day)",
            "uq_trace_scores_trace_pk_name_day UNIQUE (trace_pk, name, day)",
            f"fk_trace_scores_project_id_projects {_PROJECT_FK}",
            f"fk_trace_scores_trace_pk_traces {_TRACE_FK}",
        ],
        [
            "ix_trace_scores_project_app_name_at (project_id, application, name, trace_at)",
            "ix_trace_scores_project_name_value (project_id, name, value)",
        ],
    ),
}

PLAIN: dict[str, tuple[list[str], list[str]]] = {  # as 0012 made them
    "traces": (
        [
            "pk_traces PRIMARY KEY (id)",
            "uq_traces_project_id_trace_id UNIQUE (project_id, trace_id)",
            f"fk_traces_project_id_projects {_PROJECT_FK}",
        ],
        [
            "ix_traces_project_app_started (project_id, application, started_at)",
            "ix_traces_started_at (started_at)",
        ],
    ),
    "trace_spans": (
        [
            "pk_trace_spans PRIMARY KEY (id)",
            "uq_trace_spans_trace_pk_span_id UNIQUE (trace_pk, span_id)",
            f"fk_trace_spans_trace_pk_traces {_PLAIN_TRACE_FK}",
        ],
        [],
    ),
    "trace_scores": (
        [
            "pk_trace_scores PRIMARY KEY (id)",
            "uq_trace_scores_trace_pk_name UNIQUE (trace_pk, name)",
            f"fk_trace_scores_project_id_projects {_PROJECT_FK}",
            f"fk_trace_scores_trace_pk_traces {_PLAIN_TRACE_FK}",
        ],
        ["ix_trace_scores_project_app_name_at (project_id, application, name, trace_at)"],
    ),
}


def _index_names(shape: tuple[list[str], list[str]]) -> list[str]:
    """The index names of a table's shape: its keys' (primary, unique) and its indexes'."""
    constraints, indexes = shape
    keyed = [c.split()[0] for c in constraints if " PRIMARY KEY " in c or " UNIQUE " in c]
    return keyed + [i.split()[0] for i in indexes]


def _set_aside(shapes: dict[str, tuple[list[str], list[str]]], suffix: str) -> None:
    """Rename the tables and their indexes out of the way (index names are schema-wide); the id
    sequences stay, owned by nothing until the new tables take them."""
    for table in TABLES:
        op.execute(f"ALTER TABLE {table} RENAME TO {table}{suffix}")
        for index in _index_names(shapes[table]):
            op.execute(f"ALTER INDEX {index} RENAME TO {index}{suffix}")
        op.execute(f"ALTER SEQUENCE {table}_id_seq OWNED BY NONE")


def _shape(table: str, shape: tuple[list[str], list[str]]) -> None:
    constraints, indexes = shape
    for constraint in constraints:
        op.execute(f"ALTER TABLE {table} ADD CONSTRAINT {constraint}")
    for index in indexes:
        name, columns = index.split(" ", 1)
        op.execute(f"CREATE INDEX {name} ON {table} {columns}")


def _finish(suffix: str) -> None:
    for table in reversed(TABLES):
        op.execute(f"DROP TABLE {table}{suffix} CASCADE")
    for table in TABLES:
        op.execute(f"ALTER SEQUENCE {table}_id_seq OWNED BY {table}.id")


def _columns(table: str) -> str:
    rows = op.get_bind().execute(
        sa.text(
            "SELECT column_name FROM information_schema.columns WHERE table_name = :t "
            "AND table_schema = current_schema() ORDER BY ordinal_position"
        ),
        {"t": table},
    )
    return ", ".join(f'"{name}"' for (name,) in rows if name != "day")


def upgrade() -> None:
    op.drop_constraint(REVIEW_FK, "review_items", type_="foreignkey")
    _set_aside(PLAIN, "_plain")
    for table in TABLES:
        op.execute(
            f"CREATE TABLE {table} (LIKE {table}_plain INCLUDING DEFAULTS, day date NOT NULL) "
            "PARTITION BY RANGE (day)"
        )
        _shape(table, PARTITIONED[table])
    stored = op.get_bind().execute(
        sa.text("SELECT DISTINCT (started_at AT TIME ZONE 'UTC')::date FROM traces_plain")
    )
    today = datetime.now(UTC).date()
    days = {d for (d,) in stored} | {today + timedelta(days=n) for n in range(AHEAD_DAYS + 1)}
    for table in TABLES:
        for day in sorted(days):
            op.execute(_partition_sql(table, day))
        op.execute(f"CREATE TABLE {table}_default PARTITION OF {table} DEFAULT")
    columns = {table: _columns(f"{table}_plain") for table in TABLES}
    op.execute(
        f"INSERT INTO traces ({columns['traces']}, day) "
        f"SELECT {columns['traces']}, (started_at AT TIME ZONE 'UTC')::date FROM traces_plain"
    )
    for table in ("trace_spans", "trace_scores"):
        child = ", ".join(f"c.{name}" for name in columns[table].split(", "))
        op.execute(
            f"INSERT INTO {table} ({columns[table]}, day) SELECT {child}, t.day "
            f"FROM {table}_plain c JOIN traces t ON t.id = c.trace_pk"
        )
    _finish("_plain")


def _partition_sql(table: str, day: date) -> str:
    return (
        f"CREATE TABLE {table}_p{day:%Y%m%d} PARTITION OF {table} "
        f"FOR VALUES FROM ('{day.isoformat()}') TO ('{(day + timedelta(days=1)).isoformat()}')"
    )


def downgrade() -> None:
    _set_aside(PARTITIONED, "_parted")
    for table in TABLES:
        op.execute(f"CREATE TABLE {table} (LIKE {table}_parted INCLUDING DEFAULTS)")
        op.execute(f"ALTER TABLE {table} DROP COLUMN day")
        _shape(table, PLAIN[table])
    columns = {table: _columns(table) for table in TABLES}
    # one row per (project, trace id): the sampler never stores a trace under two days; were it
    # done by hand, the first day's row is kept
    op.execute(
        f"INSERT INTO traces ({columns['traces']}) SELECT DISTINCT ON (project_id, trace_id) "
        f"{columns['traces']} FROM traces_parted ORDER BY project_id, trace_id, day"
    )
    for table in ("trace_spans", "trace_scores"):
        op.execute(
            f"INSERT INTO {table} ({columns[table]}) SELECT {columns[table]} FROM {table}_parted "
            "WHERE trace_pk IN (SELECT id FROM traces)"
        )
    _finish("_parted")
    op.execute(
        "DELETE FROM review_items WHERE trace_pk IS NOT NULL AND trace_pk NOT IN (SELECT id FROM traces)"
    )
    op.create_foreign_key(REVIEW_FK, "review_items", "traces", ["trace_pk"], ["id"], ondelete="CASCADE")
