"""Run the drift check periodically, store alerts, publish each on ``topology.alerts``."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import UTC, datetime, timedelta

from nats.js import JetStreamContext
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.sampler.drift import check_drift, projects_scored_since
from shared.db.project_scope import scope_to_project
from shared.messaging import publish_once
from yardstick.api.experiment_events import DriftAlert
from yardstick.api.topology import Topology

log = logging.getLogger(__name__)


async def run_drift_check(
    sessions: async_sessionmaker[AsyncSession],
    js: JetStreamContext,
    topology: Topology,
    *,
    window: timedelta,
    now: datetime | None = None,
) -> list[DriftAlert]:
    """One check per project with recent online scores, each in a session scoped to that project (its
    scores, its offline baseline, its alerts). New alerts are committed first, then published
    (``Nats-Msg-Id`` = alert id)."""
    now = now or datetime.now(UTC)
    async with sessions() as session:
        projects = await projects_scored_since(session, now - 2 * window)
    alerts: list[DriftAlert] = []
    for project in projects:
        async with sessions() as session:
            scope_to_project(session, project)
            alerts += await check_drift(session, window=window, now=now)
            await session.commit()
    for alert in alerts:
        await publish_once(
            js,
            topology.alerts,
            alert.model_dump_json().encode(),
            msg_id=alert.alert_id,
            stream=topology.alerts_stream,
        )
    return alerts


class DriftMonitor:
    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        js: JetStreamContext,
        topology: Topology,
        *,
        interval_s: float,
        window: timedelta,
    ) -> None:
        self._sessions = sessions
        self._js = js
        self._topology = topology
        self._interval_s = interval_s
        self._window = window
        self._task: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()

    def start(self) -> None:
        self._task = asyncio.create_task(self._loop(), name="sampler-drift-monitor")

    async def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                await run_drift_check(self._sessions, self._js, self._topology, window=self._window)
            except Exception:
                log.exception("drift check failed; retrying in %.0fs", self._interval_s)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop.wait(), self._interval_s)

    async def stop(self) -> None:
        self._stop.set()
        if self._task is not None:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await self._task
