"""Fan-out: keep at most ``concurrency`` tasks in flight per experiment, release more as results land.

All state is in Postgres (item status pending → dispatched → ok|error), so a restarted coordinator
resumes where it stopped. A task is published *before* its row is marked dispatched: a crash in
between re-publishes it with the same ``Nats-Msg-Id`` (dropped as a duplicate inside the window,
and harmless after it because results are written idempotently).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import timedelta

from nats.js import JetStreamContext
from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.coordinator.settings import CoordinatorSettings
from shared.contracts.eval_messages import EvalTask, task_key
from shared.contracts.topology import Topology
from shared.db.base import utcnow
from shared.db.models import Experiment, ExperimentItem

log = logging.getLogger(__name__)


def task_for(experiment: Experiment, row: ExperimentItem) -> EvalTask:
    config = experiment.config
    return EvalTask(
        experiment_id=experiment.id,
        item_id=row.item_id,
        trial=row.trial,
        input=row.input,
        expected_output=row.expected_output,
        metadata=row.item_metadata,
        target=config.target,
        evaluators=config.evaluators,
        timeout_s=config.timeout_s,
        recorded=row.recorded,
    )


class Dispatcher:
    """One loop for all running experiments; woken by the collector whenever results land."""

    def __init__(
        self,
        js: JetStreamContext,
        topology: Topology,
        sessions: async_sessionmaker[AsyncSession],
        settings: CoordinatorSettings,
        on_complete: asyncio.Queue[str],
    ) -> None:
        self.js = js
        self.topology = topology
        self.sessions = sessions
        self.settings = settings
        self.on_complete = on_complete
        self.wake = asyncio.Event()
        self._stopping = False
        self._stale_checked_at = 0.0

    def poke(self) -> None:
        self.wake.set()

    def stop(self) -> None:
        self._stopping = True
        self.wake.set()

    async def run(self) -> None:
        while not self._stopping:
            self.wake.clear()
            try:
                await self.dispatch_all()
            except Exception:
                log.exception("dispatch round failed; retrying on the next tick")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), self.settings.dispatch_interval_s)

    async def dispatch_all(self) -> None:
        # Lost tasks are looked for once per tick, not on every wake-up (a wake-up per result batch).
        now = asyncio.get_running_loop().time()
        check_stale = now - self._stale_checked_at >= self.settings.dispatch_interval_s
        if check_stale:
            self._stale_checked_at = now
        async with self.sessions() as session:
            running = (
                (
                    await session.execute(
                        select(Experiment)
                        .where(Experiment.status == "running")
                        .order_by(Experiment.started_at)
                    )
                )
                .scalars()
                .all()
            )
        for experiment in running:
            if experiment.done >= experiment.total:
                await self.on_complete.put(experiment.id)
                continue
            await self.dispatch(experiment, check_stale)

    async def dispatch(self, experiment: Experiment, check_stale: bool = True) -> int:
        """Publish the next pending items up to the free slots; returns how many."""
        async with self.sessions() as session:
            flying = int(
                (
                    await session.execute(
                        select(func.count()).where(
                            ExperimentItem.experiment_id == experiment.id,
                            ExperimentItem.status == "dispatched",
                        )
                    )
                ).scalar_one()
            )
            if check_stale:
                await self._republish_stale(session, experiment)
            free = experiment.config.concurrency - flying
            if free <= 0:
                return 0
            rows = (
                (
                    await session.execute(
                        select(ExperimentItem)
                        .where(
                            ExperimentItem.experiment_id == experiment.id, ExperimentItem.status == "pending"
                        )
                        .order_by(ExperimentItem.position, ExperimentItem.trial)
                        .limit(free)
                    )
                )
                .scalars()
                .all()
            )
            if not rows:
                return 0
            await asyncio.gather(*(self._publish(task_for(experiment, row)) for row in rows))
            await session.execute(
                update(ExperimentItem)
                .where(ExperimentItem.id.in_([r.id for r in rows]), ExperimentItem.status == "pending")
                .values(status="dispatched", dispatched_at=utcnow())
            )
            await session.commit()
            return len(rows)

    async def _publish(self, task: EvalTask) -> None:
        await self.js.publish(
            self.topology.eval_task,
            task.model_dump_json().encode(),
            stream=self.topology.eval_tasks_stream,
            headers={"Nats-Msg-Id": task.task_id},
        )

    async def _republish_stale(self, session: AsyncSession, experiment: Experiment) -> None:
        """A task with no result long after dispatch was lost (e.g. dropped after max deliveries while
        its worker died): publish it again. Results are idempotent, so a late original is harmless."""
        cutoff = utcnow() - timedelta(seconds=self.settings.stale_dispatch_s)
        stale = (
            (
                await session.execute(
                    select(ExperimentItem)
                    .where(
                        ExperimentItem.experiment_id == experiment.id,
                        ExperimentItem.status == "dispatched",
                        ExperimentItem.dispatched_at < cutoff,
                    )
                    .limit(100)
                )
            )
            .scalars()
            .all()
        )
        for row in stale:
            log.warning(
                "re-publishing stale task", extra={"task_id": task_key(experiment.id, row.item_id, row.trial)}
            )
            await self._publish(task_for(experiment, row))
            row.dispatched_at = utcnow()
        if stale:
            await session.commit()
