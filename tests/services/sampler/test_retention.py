"""Stored traffic expires: whole days older than the retention are dropped with their spans, scores
and review items; the rest of the day that straddles the cutoff goes in batches; a trace locked by a
writer is skipped, not waited for."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.sampler.retention import delete_expired, delete_expired_batch, sweep
from services.sampler.trace_store import stored_trace
from shared.db.review_models import ReviewItem
from shared.db.trace_models import Trace, TraceScore, TraceSpan
from shared.db.trace_partitions import maintain, partition_days
from tests.services.sampler.spans import trace_hex
from tests.services.sampler.test_trace_store import configure, handler, part
from yardstick.api.projects import DEFAULT_PROJECT
from yardstick.api.trace_record import Completeness

pytestmark = pytest.mark.integration

Sessions = async_sessionmaker[AsyncSession]
NOW = datetime(2026, 11, 26, 12, tzinfo=UTC)


async def seed(sessions: Sessions, ages_days: list[float]) -> None:
    await configure(sessions, rate=1.0)
    h = handler(sessions)
    for n, _ in enumerate(ages_days):
        assert await h.handle(part(n, [0, 1, 2, 3], Completeness.ROOT_ENDED)) == "stored"
    async with sessions() as session:
        for n, age in enumerate(ages_days):
            stmt = (
                update(Trace)
                .where(Trace.trace_id == trace_hex(n))
                .values(started_at=NOW - timedelta(days=age))
            )
            await session.execute(stmt)
        await session.commit()


async def remaining(sessions: Sessions) -> tuple[list[str], int, int]:
    async with sessions() as session:
        ids = sorted((await session.execute(select(Trace.trace_id))).scalars())
        spans = (await session.execute(select(func.count()).select_from(TraceSpan))).scalar_one()
        scores = (await session.execute(select(func.count()).select_from(TraceScore))).scalar_one()
    return ids, spans, scores


async def test_expired_traces_go_in_batches_with_their_spans_and_scores(session_factory: Sessions) -> None:
    await seed(session_factory, [40, 31, 35, 29, 1])
    deleted = await delete_expired(session_factory, retention=timedelta(days=30), batch=2, now=NOW)
    assert deleted == 3
    assert await remaining(session_factory) == ([trace_hex(3), trace_hex(4)], 8, 2)
    assert await delete_expired(session_factory, retention=timedelta(days=30), batch=2, now=NOW) == 0


async def test_a_trace_being_written_is_skipped_not_waited_for(session_factory: Sessions) -> None:
    await seed(session_factory, [40, 40])
    async with session_factory() as writer:
        assert await stored_trace(writer, DEFAULT_PROJECT, trace_hex(0)) is not None  # FOR UPDATE
        async with session_factory() as sweeper:
            deleted = await asyncio.wait_for(delete_expired_batch(sweeper, NOW - timedelta(days=30), 10), 5)
            await sweeper.commit()
        assert deleted == 1
        await writer.rollback()
    assert (await remaining(session_factory))[0] == [trace_hex(0)]


LATER = datetime(2031, 3, 10, 12, tzinfo=UTC)  # after every partition the migration made
QUEUE = (
    "INSERT INTO review_queues (id, project_id, name, description, definition, created_at, created_by) "
    "VALUES ('q', 'default', 'q', '', '{}', now(), '')"
)


async def review_items_of(sessions: Sessions) -> list[str]:
    async with sessions() as session:
        stmt = text("SELECT t.trace_id FROM review_items r JOIN traces t ON t.id = r.trace_pk ORDER BY 1")
        return list((await session.execute(stmt)).scalars())


async def test_a_sweep_drops_whole_expired_days_and_deletes_the_rest_of_the_day_that_straddles(
    session_factory: Sessions,
) -> None:
    await configure(session_factory, rate=1.0)
    async with session_factory() as session:  # the days a sampler running since 45 days made
        await maintain(session, today=(LATER - timedelta(days=45)).date(), ahead_days=46, keep_from=None)
        await session.commit()
    h = handler(session_factory)
    ages = [40, 31, 30.2, 29.9, 1]  # the cutoff (30 days) is 12:00 on the day of 30.2 and 29.9
    for n, age in enumerate(ages):
        assert await h.handle(part(n, [0, 1, 2, 3], Completeness.ROOT_ENDED, at=LATER - timedelta(days=age)))
    async with session_factory() as session:
        await session.execute(text(QUEUE))
        for position, n in enumerate((0, 4)):
            pk = (await session.execute(select(Trace.id).where(Trace.trace_id == trace_hex(n)))).scalar_one()
            session.add(ReviewItem(queue_id="q", position=position + 1, trace_pk=pk))
        await session.commit()
    gone = await sweep(session_factory, retention=timedelta(days=30), batch=10, now=LATER, ahead_days=2)
    assert gone == 3
    assert await remaining(session_factory) == ([trace_hex(3), trace_hex(4)], 8, 2)
    async with session_factory() as session:
        days = await partition_days(session)
        orphans = (await session.execute(select(func.count()).select_from(ReviewItem))).scalar_one()
    assert days[0] == (LATER - timedelta(days=30)).date() and days[-1] == (LATER + timedelta(days=2)).date()
    assert orphans == 1 and await review_items_of(session_factory) == [trace_hex(4)]
    assert await sweep(session_factory, retention=timedelta(days=30), batch=10, now=LATER, ahead_days=2) == 0
