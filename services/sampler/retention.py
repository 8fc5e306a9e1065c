"""Stored traffic expires: traces that started more than ``TRAFFIC_RETENTION_DAYS`` ago go, with
their spans, scores and review items; and the trace tables' day partitions are kept created ahead.

A sweep is two steps:

1. Maintenance (:func:`shared.db.trace_partitions.maintain`, one transaction): the partitions of today
   up to ``ahead_days`` ahead are created (with those of the days the default partition holds rows
   of), and every day partition wholly older than the cutoff (its day ends at or before the cutoff's
   day starts) is dropped whole: no row-by-row delete, no dead tuples, no vacuum.
2. What is left older than the cutoff (the day that straddles it, and the default partition's rows)
   is deleted in small batches, each its own short transaction. A batch picks its rows with
   ``FOR UPDATE SKIP LOCKED``: a trace a sampler is merging right now is skipped (the next sweep
   takes it), so this step never waits on, nor blocks, the writes of traffic.

A trace's ``day`` is its first stored start and a merge only moves ``started_at`` earlier (it is the
earliest span's start), so every trace of a dropped day started before the cutoff.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import UTC, datetime, timedelta

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from shared.db.review_models import ReviewItem
from shared.db.trace_models import Trace
from shared.db.trace_partitions import maintain

log = logging.getLogger(__name__)


async def delete_expired_batch(session: AsyncSession, cutoff: datetime, batch: int) -> int:
    """Delete up to ``batch`` traces started before ``cutoff``; how many went (caller commits)."""
    expired = (
        select(Trace.id)
        .where(Trace.started_at < cutoff)
        .order_by(Trace.started_at)
        .limit(batch)
        .with_for_update(skip_locked=True)
    )
    ids = list((await session.execute(expired)).scalars())
    if ids:
        await session.execute(delete(ReviewItem).where(ReviewItem.trace_pk.in_(ids)))
        await session.execute(delete(Trace).where(Trace.id.in_(ids)))
    return len(ids)


async def delete_expired(
    sessions: async_sessionmaker[AsyncSession], *, retention: timedelta, batch: int, now: datetime
) -> int:
    """Every expired trace, ``batch`` per transaction; how many were deleted."""
    cutoff = now - retention
    total = 0
    while True:
        async with sessions() as session:
            deleted = await delete_expired_batch(session, cutoff, batch)
            await session.commit()
        total += deleted
        if deleted < batch:
            return total


async def sweep(
    sessions: async_sessionmaker[AsyncSession],
    *,
    retention: timedelta,
    batch: int,
    now: datetime,
    ahead_days: int,
) -> int:
    """One sweep (see the module): how many traces went, dropped with their day or deleted."""
    cutoff = now - retention
    async with sessions() as session:
        created, dropped, gone = await maintain(
            session,
            today=now.astimezone(UTC).date(),
            ahead_days=ahead_days,
            keep_from=cutoff.astimezone(UTC).date(),
        )
        await session.commit()
    if created or dropped:
        log.info("trace partitions: created %s, dropped %s (%d traces)", created, dropped, gone)
    return gone + await delete_expired(sessions, retention=retention, batch=batch, now=now)


class RetentionSweep:
    """Runs :func:`sweep` every ``interval_s``."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        *,
        retention: timedelta,
        batch: int,
        interval_s: float,
        ahead_days: int,
    ) -> None:
        self._sessions = sessions
        self._retention = retention
        self._batch = batch
        self._interval_s = interval_s
        self._ahead_days = ahead_days
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.deleted = 0

    def start(self) -> None:
        self._task = asyncio.create_task(self._loop(), name="sampler-retention")

    async def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                deleted = await sweep(
                    self._sessions,
                    retention=self._retention,
                    batch=self._batch,
                    now=datetime.now(UTC),
                    ahead_days=self._ahead_days,
                )
                self.deleted += deleted
                if deleted:
                    log.info("retention: %d expired traces went", deleted)
            except Exception:
                log.exception("retention sweep failed; retrying in %.0fs", self._interval_s)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop.wait(), self._interval_s)

    async def stop(self) -> None:
        self._stop.set()
        if self._task is not None:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await self._task
