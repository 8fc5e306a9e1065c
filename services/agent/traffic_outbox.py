"""Chat turns survive a NATS outage and the agent's death during one: a Postgres outbox.

A turn is published inline when NATS is connected (one attempt, bounded by ``publish_timeout_s``).
When NATS is away, or that attempt fails, the turn is written to ``traffic_outbox`` before the
customer gets the reply, so it is durable however long the outage lasts and whatever happens to
this process. A drainer publishes the outbox whenever NATS is connected, oldest first, and deletes
each row after its PubAck; ``FOR UPDATE SKIP LOCKED`` lets several agent replicas drain together,
and the turn's ``Nats-Msg-Id`` makes a publish repeated after a crash between PubAck and delete a
no-op inside JetStream's duplicate window. A restarted agent drains what an earlier one left.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from sqlalchemy import delete, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.agent.traffic import TrafficPublisher
from shared.contracts.agent_messages import TrafficTurn
from shared.db.models import TrafficOutbox
from shared.messaging import ConnectionHealth

log = logging.getLogger(__name__)

DRAIN_BATCH = 100
DRAIN_INTERVAL_S = 1.0


class OutboxTrafficPublisher:
    """``publish`` never loses a turn and never raises for NATS; ``run`` drains the outbox."""

    def __init__(
        self,
        inner: TrafficPublisher,
        sessions: async_sessionmaker[AsyncSession],
        health: ConnectionHealth,
        publish_timeout_s: float = 2.0,
    ) -> None:
        self._inner = inner
        self._sessions = sessions
        self._health = health
        self._timeout_s = publish_timeout_s
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def publish(self, turn: TrafficTurn) -> None:
        if self._health.connected:
            try:
                async with asyncio.timeout(self._timeout_s):
                    await self._inner.publish(turn)
                return
            except Exception as exc:  # NATS went away mid-publish: keep the turn
                error = f"{type(exc).__name__}: {exc}"
        else:
            error = "NATS disconnected"
        await self._store(turn, error)
        self._wake.set()

    async def _store(self, turn: TrafficTurn, error: str) -> None:
        async with self._sessions() as session:
            await session.execute(
                insert(TrafficOutbox)
                .values(msg_id=turn.msg_id, turn=turn.model_dump(mode="json"), attempts=1, last_error=error)
                .on_conflict_do_nothing(index_elements=["msg_id"])
            )
            await session.commit()
        log.warning("traffic turn kept in the outbox until NATS is back", extra={"msg_id": turn.msg_id})

    async def drain_once(self) -> int:
        """Publish up to ``DRAIN_BATCH`` kept turns (oldest first); returns how many left the outbox."""
        published = 0
        async with self._sessions() as session:
            rows = (
                await session.execute(
                    select(TrafficOutbox)
                    .order_by(TrafficOutbox.created_at)
                    .limit(DRAIN_BATCH)
                    .with_for_update(skip_locked=True)
                )
            ).scalars()
            for row in rows:
                try:
                    async with asyncio.timeout(self._timeout_s):
                        await self._inner.publish(TrafficTurn.model_validate(row.turn))
                except Exception as exc:
                    row.attempts += 1
                    row.last_error = f"{type(exc).__name__}: {exc}"
                    break  # NATS is not answering: try again on the next round
                await session.execute(delete(TrafficOutbox).where(TrafficOutbox.msg_id == row.msg_id))
                published += 1
            await session.commit()
        if published:
            log.info("traffic outbox drained", extra={"published": published})
        return published

    async def run(self) -> None:
        """Drain whenever NATS is connected: at once when woken, else every ``DRAIN_INTERVAL_S``."""
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), DRAIN_INTERVAL_S)
            self._wake.clear()
            if not self._health.connected:
                continue
            try:
                while await self.drain_once() == DRAIN_BATCH:
                    pass
            except Exception:  # Postgres away too: the rows stay, the next round retries
                log.exception("draining the traffic outbox failed; retrying")

    def start(self) -> None:
        self._task = asyncio.create_task(self.run(), name="traffic-outbox")

    async def aclose(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
