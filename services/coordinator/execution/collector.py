"""Collector: pull results from the durable consumer in batches, write them, then ack.

Ack only after the transaction committed; a crash before the ack redelivers the batch, which the
idempotent write turns into a no-op.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg
from nats.js import JetStreamContext
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.coordinator.execution.events import publish_event
from services.coordinator.settings import CoordinatorSettings
from services.coordinator.store.results import Progressed, store_results
from shared.contracts.eval_messages import EvalResult
from shared.contracts.topology import COORDINATOR_RESULTS_CONSUMER, Topology
from shared.messaging import decode_or_terminate, settle
from shared.messaging.pull import fetch_ready
from shared.messaging.streams import coordinator_results_consumer

log = logging.getLogger(__name__)


class Collector:
    def __init__(
        self,
        nc: NatsClient,
        js: JetStreamContext,
        topology: Topology,
        sessions: async_sessionmaker[AsyncSession],
        settings: CoordinatorSettings,
        on_progress: Callable[[list[Progressed]], None],
    ) -> None:
        self.nc = nc
        self.js = js
        self.topology = topology
        self.sessions = sessions
        self.settings = settings
        self.on_progress = on_progress
        self._stopping = False

    def stop(self) -> None:
        self._stopping = True

    async def run(self) -> None:
        sub = await self.js.pull_subscribe(
            self.topology.eval_result,
            durable=COORDINATOR_RESULTS_CONSUMER,
            stream=self.topology.eval_results_stream,
            config=coordinator_results_consumer(),
        )
        while not self._stopping:
            try:
                msgs = await fetch_ready(sub, self.settings.result_batch_size, wait_s=1.0)
            except TimeoutError:
                continue
            except Exception:
                log.exception("fetching results failed")
                await asyncio.sleep(0.5)
                continue
            await self.handle_batch(msgs)

    async def handle_batch(self, msgs: list[Msg]) -> None:
        results: list[EvalResult] = []
        good: list[Msg] = []
        for msg in msgs:
            if (result := await decode_or_terminate(msg, EvalResult)) is not None:
                results.append(result)
                good.append(msg)
        try:
            async with self.sessions() as session:
                progressed = await store_results(session, results)
                await session.commit()
        except Exception:
            log.exception("writing %d results failed; they will be redelivered", len(results))
            for msg in good:
                await msg.nak(delay=1.0)
            return
        if progressed:  # committed: free slots can be refilled while the acks travel
            self.on_progress(progressed)
        await asyncio.gather(*(settle(msg, "ack") for msg in good))
        if progressed:
            for p in progressed:
                await publish_event(
                    self.nc,
                    self.topology,
                    p.experiment_id,
                    "progress",
                    status="running",
                    total=p.total,
                    done=p.done,
                    errors=p.errors,
                    cache_hits=p.cache_hits,
                )
