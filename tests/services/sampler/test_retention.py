"""Stored traffic expires: traces older than the retention go in batches, with their spans and scores;
a trace locked by a writer is skipped, not waited for."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.sampler.retention import delete_expired, delete_expired_batch
from services.sampler.trace_store import stored_trace
from shared.db.trace_models import Trace, TraceScore, TraceSpan
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
