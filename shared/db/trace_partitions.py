"""The day partitions of the trace-side tables: created ahead, dropped whole when they expire.

``traces``, ``trace_spans`` and ``trace_scores`` are range-partitioned on ``day`` (see
:mod:`shared.db.trace_models`), one partition per UTC day and table, named ``<table>_pYYYYMMDD``, plus
a default partition (``<table>_default``) that takes a row whose day has no partition yet: a late or
early timestamp is never refused.

Rules:

- The three tables always have the same days: a day is created for all three in one transaction,
  and dropped for all three in one (spans and scores first, as they reference their trace; the
  trace partition is detached before it is dropped, which PostgreSQL requires of a referenced one).
- Creating a day whose rows sit in the default partition moves them into the new partition in the
  same transaction (a partition cannot be created while the default holds rows of its range).
- Dropping a day also deletes the review items that point at its traces (``review_items.trace_pk``
  has no foreign key to a partitioned table).
- DDL waits at most :data:`LOCK_TIMEOUT` for its locks (a long reader delays it to the next sweep
  instead of queueing every writer behind it), and one maintenance runs at a time (an advisory lock:
  a second one skips).
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

PARTITIONED = ("traces", "trace_spans", "trace_scores")
"""Parent first: created in this order, dropped in the reverse one."""
LOCK_TIMEOUT = "5s"
MAINTENANCE_LOCK = 0x7472616365  # pg_try_advisory_xact_lock key of a maintenance ("trace")
_SUFFIX = re.compile(r"_p(\d{8})$")


def partition_name(table: str, day: date) -> str:
    return f"{table}_p{day:%Y%m%d}"


def default_name(table: str) -> str:
    return f"{table}_default"


async def partition_days(session: AsyncSession) -> list[date]:
    """The days that have a partition (those of ``traces``), oldest first."""
    stmt = text(
        "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
        "WHERE i.inhparent = 'traces'::regclass"
    )
    days = []
    for (name,) in (await session.execute(stmt)).all():
        match = _SUFFIX.search(name)
        if match:
            days.append(date(int(match[1][:4]), int(match[1][4:6]), int(match[1][6:])))
    return sorted(days)


async def default_days(session: AsyncSession) -> list[date]:
    """The days of the rows the default partition of ``traces`` holds."""
    stmt = text(f"SELECT DISTINCT day FROM {default_name('traces')} ORDER BY day")
    return list((await session.execute(stmt)).scalars())


async def _lock_timeout(session: AsyncSession) -> None:
    await session.execute(text(f"SET LOCAL lock_timeout = '{LOCK_TIMEOUT}'"))


async def create_day(session: AsyncSession, day: date) -> None:
    """Create ``day``'s partitions, moving its rows out of the default partitions (caller commits)."""
    await _lock_timeout(session)
    bounds = f"FROM ('{day.isoformat()}') TO ('{(day + timedelta(days=1)).isoformat()}')"
    for table in reversed(PARTITIONED):  # rows move children first: deleting a trace cascades
        name = partition_name(table, day)
        await session.execute(text(f"CREATE TABLE {name} (LIKE {table} INCLUDING DEFAULTS)"))
        moved = (
            f"WITH moved AS (DELETE FROM {default_name(table)} WHERE day = :day RETURNING *) "
            f"INSERT INTO {name} SELECT * FROM moved"
        )
        await session.execute(text(moved), {"day": day})
    for table in PARTITIONED:  # attached parent first: the children's foreign keys need it
        await session.execute(
            text(f"ALTER TABLE {table} ATTACH PARTITION {partition_name(table, day)} FOR VALUES {bounds}")
        )


async def drop_day(session: AsyncSession, day: date) -> int:
    """Drop ``day``'s partitions with the review items of its traces; how many traces went (caller
    commits)."""
    await _lock_timeout(session)
    traces = partition_name("traces", day)
    count = (await session.execute(text(f"SELECT count(*) FROM {traces}"))).scalar_one()
    await session.execute(text(f"DELETE FROM review_items WHERE trace_pk IN (SELECT id FROM {traces})"))
    for table in reversed(PARTITIONED):
        name = partition_name(table, day)
        if table == PARTITIONED[0]:  # referenced by the children's foreign keys: detached first
            await session.execute(text(f"ALTER TABLE {table} DETACH PARTITION {name}"))
        await session.execute(text(f"DROP TABLE {name}"))
    return int(count)


async def maintain(
    session: AsyncSession, *, today: date, ahead_days: int, keep_from: date | None
) -> tuple[list[date], list[date], int]:
    """One maintenance, in the caller's transaction (it commits): the days from ``keep_from`` (or
    today) to ``today + ahead_days`` that the default partition holds rows of, and every day from
    today to ``today + ahead_days``, get partitions; days before ``keep_from`` are dropped. Returns the
    days created, the days dropped and the traces dropped with them; nothing when another maintenance
    holds the lock."""
    locked = await session.execute(text("SELECT pg_try_advisory_xact_lock(:key)"), {"key": MAINTENANCE_LOCK})
    if not locked.scalar_one():
        return [], [], 0
    existing = set(await partition_days(session))
    last = today + timedelta(days=ahead_days)
    first = keep_from if keep_from is not None else today
    wanted = {today + timedelta(days=n) for n in range(ahead_days + 1)}
    wanted |= {d for d in await default_days(session) if first <= d <= last}
    created = sorted(wanted - existing)
    for day in created:
        await create_day(session, day)
    dropped = sorted(d for d in existing if keep_from is not None and d < keep_from)
    gone = 0
    for day in dropped:
        gone += await drop_day(session, day)
    return created, dropped, gone
