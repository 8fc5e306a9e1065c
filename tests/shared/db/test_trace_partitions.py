"""Day partitions of the trace tables: a trace, its spans and its scores land in their day's
partition; a day without one lands in the default partition and moves into its own when it is
created; a merge that moves a trace's start to the day before leaves it where it is."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from shared.db.trace_partitions import maintain, partition_days
from tests.services.sampler.test_trace_store import configure, handler, part
from yardstick.api.trace_record import Completeness

pytestmark = pytest.mark.integration

Sessions = async_sessionmaker[AsyncSession]
TODAY = date(2031, 1, 10)  # after every partition the migration made: the test makes its own


async def where(sessions: Sessions) -> dict[str, set[str]]:
    """For each trace table, the partitions that hold its rows."""
    async with sessions() as session:
        return {
            table: set(
                (await session.execute(text(f"SELECT tableoid::regclass::text FROM {table}"))).scalars()
            )
            for table in ("traces", "trace_spans", "trace_scores")
        }


def partitions(day: str) -> dict[str, set[str]]:
    return {table: {f"{table}_{day}"} for table in ("traces", "trace_spans", "trace_scores")}


async def test_rows_land_in_their_day_and_a_day_without_a_partition_waits_in_the_default(
    session_factory: Sessions,
) -> None:
    await configure(session_factory, rate=1.0)
    h = handler(session_factory)
    early = datetime(2031, 1, 12, 9, tzinfo=UTC)
    assert await h.handle(part(1, [0, 1, 2, 3], Completeness.ROOT_ENDED, at=early)) == "stored"
    assert await where(session_factory) == partitions("default")
    async with session_factory() as session:
        created, dropped, gone = await maintain(session, today=TODAY, ahead_days=3, keep_from=None)
        await session.commit()
    assert created == [TODAY + timedelta(days=n) for n in range(4)] and (dropped, gone) == ([], 0)
    assert await where(session_factory) == partitions("p20310112")  # moved out of the default
    async with session_factory() as session:
        assert (await maintain(session, today=TODAY, ahead_days=3, keep_from=None))[0] == []  # idempotent
        assert set(await partition_days(session)) >= set(created)


async def test_a_merge_that_starts_the_trace_the_day_before_leaves_it_in_its_first_day(
    session_factory: Sessions,
) -> None:
    await configure(session_factory, rate=1.0)
    async with session_factory() as session:
        await maintain(session, today=TODAY, ahead_days=1, keep_from=None)
        await session.commit()
    h = handler(session_factory)
    midnight = datetime(2031, 1, 11, tzinfo=UTC)
    at = midnight - timedelta(milliseconds=2)  # the root starts 2 ms before midnight, its spans after
    assert await h.handle(part(2, [2, 3], Completeness.QUIET, at=at)) == "stored"
    assert await h.handle(part(2, [0, 1], Completeness.ROOT_ENDED, at=at)) == "merged"
    assert await where(session_factory) == partitions("p20310111")
    async with session_factory() as session:
        started, day, spans = (
            await session.execute(
                text(
                    "SELECT started_at, day, span_count FROM traces "
                    "WHERE tableoid = 'traces_p20310111'::regclass"
                )
            )
        ).one()
    assert (started, day, spans) == (at, midnight.date(), 4)
