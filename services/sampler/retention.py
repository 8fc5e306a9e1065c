"""Stored traffic expires: traces that started more than ``TRAFFIC_RETENTION_DAYS`` ago are deleted
(with their spans, scores and review items, by cascade) in small batches, each its own short
transaction.

A batch picks its rows with ``FOR UPDATE SKIP LOCKED``: a trace a sampler is merging right now is
skipped (the next sweep takes it), so the sweep never waits on, nor blocks, the writes of traffic.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import UTC, datetime, timedelta

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from shared.db.trace_models import Trace

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


class RetentionSweep:
    """Runs :func:`delete_expired` every ``interval_s``."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        *,
        retention: timedelta,
        batch: int,
        interval_s: float,
    ) -> None:
        self._sessions = sessions
        self._retention = retention
        self._batch = batch
        self._interval_s = interval_s
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.deleted = 0

    def start(self) -> None:
        self._task = asyncio.create_task(self._loop(), name="sampler-retention")

    async def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                deleted = await delete_expired(
                    self._sessions, retention=self._retention, batch=self._batch, now=datetime.now(UTC)
                )
                self.deleted += deleted
                if deleted:
                    log.info("retention: deleted %d expired traces", deleted)
            except Exception:
                log.exception("retention sweep failed; retrying in %.0fs", self._interval_s)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop.wait(), self._interval_s)

    async def stop(self) -> None:
        self._stop.set()
        if self._task is not None:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await self._task
