"""Everything the coordinator process runs: DB engine, NATS connection, dispatcher, collector, finalizer."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from nats.aio.client import Client as NatsClient
from nats.js import JetStreamContext
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from services.coordinator.comparisons.pairwise_jobs import PairwiseJobs
from services.coordinator.experiments.collector import Collector
from services.coordinator.experiments.dispatch.credit_grants import CreditGrants
from services.coordinator.experiments.dispatch.dispatcher import Dispatcher
from services.coordinator.experiments.finalizer import Finalizer
from services.coordinator.experiments.judge_cache_pruning import prune_judge_cache_forever
from services.coordinator.experiments.store.results import Progressed
from services.coordinator.settings import CoordinatorSettings
from services.coordinator.traces.backfills import BackfillRunner
from shared.db.session import make_engine, make_session_factory
from shared.evaluators import EvaluatorRegistry
from shared.evaluators.loading import process_registry
from yardstick.api.nats_connection import ConnectionHealth, connect_nats

log = logging.getLogger(__name__)


class Runtime:
    nc: NatsClient
    js: JetStreamContext
    engine: AsyncEngine
    sessions: async_sessionmaker[AsyncSession]
    dispatcher: Dispatcher
    collector: Collector
    finalizer: Finalizer
    pairwise_jobs: PairwiseJobs
    backfills: BackfillRunner

    def __init__(self, settings: CoordinatorSettings, registry: EvaluatorRegistry | None = None) -> None:
        self.settings = settings
        self.topology = settings.topology
        self._tasks: list[asyncio.Task[None]] = []
        self.ready = False
        self.nats_health = ConnectionHealth()
        self.registry = registry or process_registry()  # what the finalizer runs, submissions check

    async def start(self) -> None:
        self.engine = make_engine(self.settings.database_url, pool_size=10)
        self.sessions = make_session_factory(self.engine)
        self.nc = await connect_nats(
            self.settings.nats_url,
            name="coordinator",
            health=self.nats_health,
            reconnect_wait_s=self.settings.nats_reconnect_wait_s,
        )
        self.js = self.nc.jetstream()
        credits = (
            CreditGrants(self.nc, self.topology, self.settings.credit_read_ahead)
            if self.settings.credit_read_ahead > 0
            else None
        )
        self.finalizer = Finalizer(self.nc, self.topology, self.sessions, self.registry)
        self.dispatcher = Dispatcher(
            self.js, self.topology, self.sessions, self.settings, self.finalizer.submit, credits=credits
        )
        self.collector = Collector(
            self.nc,
            self.js,
            self.topology,
            self.sessions,
            self.settings,
            on_progress=self._progressed,
            on_arrival=self.dispatcher.release,
        )
        self.pairwise_jobs = PairwiseJobs(self.sessions, self.settings.judge_pairs_at_once)
        self._tasks = [
            asyncio.create_task(self.dispatcher.run(), name="dispatcher"),
            asyncio.create_task(self.collector.run(), name="collector"),
            asyncio.create_task(self.finalizer.run(), name="finalizer"),
            asyncio.create_task(
                prune_judge_cache_forever(self.sessions, self.settings.judge_cache_prune_interval_s),
                name="judge-cache-pruner",
            ),
        ]
        await self.finalizer.resume_interrupted()
        await self.pairwise_jobs.resume_interrupted()
        self.backfills = BackfillRunner(self.sessions, self.registry)
        await self.backfills.resume()
        self.ready = True
        log.info("coordinator started", extra={"namespace": self.topology.namespace})

    def _progressed(self, progressed: list[Progressed]) -> None:
        self.dispatcher.progressed(p.experiment_id for p in progressed)
        for p in progressed:
            if p.done >= p.total:
                self.finalizer.submit(p.experiment_id)

    async def stop(self) -> None:
        self.ready = False
        self.dispatcher.stop()
        self.collector.stop()
        self.finalizer.stop()
        await self.pairwise_jobs.stop()
        await self.backfills.stop()
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        with contextlib.suppress(Exception):
            await self.nc.close()
        await self.engine.dispose()
