"""Collector: pull results from the durable consumer, write them in batches, then ack.

A message holds one result, or several that a worker scored close together
(``services/evaluator/result_publisher.py``); either way it is acked once all of them are written.

Two loops, so that a result is noticed the moment it arrives rather than after the previous batch
was written:
- the **reader** (the shared :class:`~shared.messaging.PullLoop`) fetches whatever is ready,
  reports the batch's tasks as arrived (``on_arrival``: the dispatcher refills their slots at once)
  and queues the batch;
- the **writer** takes every queued batch (up to ``result_batch_size`` results per transaction),
  writes them idempotently, and acks only after the transaction committed. A busy writer (its last
  write began less than ``write_gap_s`` ago) first gathers what arrives until the gap is over: one
  transaction for many results instead of one per fetch; an idle one writes at once.

A crash before the ack redelivers the batch, which the idempotent write turns into a no-op; a
result whose write failed is nacked and redelivered, and frees no second slot (the dispatcher
counts a task's arrival once). The queue is bounded, so a slow database slows the reader down
instead of holding thousands of unacked messages.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from collections.abc import Callable
from dataclasses import dataclass

from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg
from nats.js import JetStreamContext
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.coordinator.experiments.events import publish_event
from services.coordinator.experiments.store.results import Progressed, store_results
from services.coordinator.settings import CoordinatorSettings
from shared.messaging import AckPipeline, PullLoop, decode_or_terminate
from shared.messaging.streams import coordinator_results_consumer
from shared.metrics import RESULT_WRITE_FAILURES, RESULTS_STORED
from yardstick.api.eval_messages import RESULT_BATCH_HEADER, EvalResult, EvalResultBatch
from yardstick.api.experiment_status import ExperimentStatus
from yardstick.api.topology import COORDINATOR_RESULTS_CONSUMER, Topology

log = logging.getLogger(__name__)

QUEUED_BATCHES = 4


@dataclass
class _Batch:
    msgs: list[Msg]
    results: list[EvalResult]


class Collector:
    def __init__(
        self,
        nc: NatsClient,
        js: JetStreamContext,
        topology: Topology,
        sessions: async_sessionmaker[AsyncSession],
        settings: CoordinatorSettings,
        on_progress: Callable[[list[Progressed]], None],
        on_arrival: Callable[[list[EvalResult]], None],
    ) -> None:
        self.nc = nc
        self.js = js
        self.topology = topology
        self.sessions = sessions
        self.settings = settings
        self.on_progress = on_progress
        self.on_arrival = on_arrival
        self._queue: asyncio.Queue[_Batch] = asyncio.Queue(maxsize=QUEUED_BATCHES)
        self._pull = PullLoop(
            "collector", batch=settings.result_batch_size, wait_s=1.0, on_batch=self._queue_batch
        )
        self._queued = asyncio.Event()
        """Set when a batch is queued: the writer, gathering during its gap, takes it at once."""
        self._stopping = False
        self._acks = AckPipeline()

    def stop(self) -> None:
        self._stopping = True
        self._pull.stop()

    async def run(self) -> None:
        async with asyncio.TaskGroup() as group:
            group.create_task(self._read(), name="collector-read")
            group.create_task(self._write(), name="collector-write")

    async def _read(self) -> None:
        sub = await self.js.pull_subscribe(
            self.topology.eval_result,
            durable=COORDINATOR_RESULTS_CONSUMER,
            stream=self.topology.eval_results_stream,
            config=coordinator_results_consumer(),
        )
        await self._pull.run(sub)

    async def _queue_batch(self, msgs: list[Msg]) -> None:
        await self._queue.put(await self.arrived(msgs))
        self._queued.set()

    async def arrived(self, msgs: list[Msg]) -> _Batch:
        """Decode the fetched messages (each one result, or a worker's batch of them)."""
        batch = _Batch([], [])
        for msg in msgs:
            if msg.headers and RESULT_BATCH_HEADER in msg.headers:
                if (several := await decode_or_terminate(msg, EvalResultBatch)) is not None:
                    batch.results.extend(several.root)
                    batch.msgs.append(msg)
            elif (result := await decode_or_terminate(msg, EvalResult)) is not None:
                batch.results.append(result)
                batch.msgs.append(msg)
        self.on_arrival(batch.results)
        return batch

    async def _write(self) -> None:
        """Write batch after batch; when stopped (cancelled), give back what was fetched but not
        written, so that the next coordinator gets it at once instead of after ``ack_wait``."""
        holding: list[_Batch] = []
        try:
            await self._write_batches(holding)
        finally:
            while not self._queue.empty():
                holding.append(self._queue.get_nowait())
            for msg in (m for batch in holding for m in batch.msgs):
                with contextlib.suppress(Exception):  # an acked one ignores it; a closed connection drops it
                    await msg.nak()

    async def _write_batches(self, holding: list[_Batch]) -> None:
        loop = asyncio.get_running_loop()
        last_write = -math.inf
        while not self._stopping:
            holding.clear()
            batch = await self._queue.get()
            holding.append(batch)
            # busy (the last write began less than write_gap_s ago): gather until the gap is over
            until = last_write + self.settings.write_gap_s
            while len(batch.results) < self.settings.result_batch_size:
                if self._queue.empty() and (wait := until - loop.time()) > 0:
                    self._queued.clear()
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._queued.wait(), wait)
                if self._queue.empty():
                    break
                more = self._queue.get_nowait()
                holding.append(more)
                batch = _Batch(batch.msgs + more.msgs, batch.results + more.results)
            last_write = loop.time()
            await self.store(batch)
        holding.clear()

    async def store(self, batch: _Batch) -> None:
        try:
            async with self.sessions() as session:
                progressed = await store_results(session, batch.results)
                await session.commit()
        except Exception:
            log.exception("writing %d results failed; they will be redelivered", len(batch.results))
            RESULT_WRITE_FAILURES.inc()
            for msg in batch.msgs:
                await msg.nak(delay=1.0)
            return
        for result in batch.results:
            RESULTS_STORED.labels(result.status).inc()
        if progressed:  # committed: completed experiments go to the finalizer
            self.on_progress(progressed)
        await self._acks.ack_all(batch.msgs)  # one confirmation for the batch, after the commit
        for p in progressed:
            await publish_event(
                self.nc, self.topology, p.experiment_id, "progress", ExperimentStatus.RUNNING, p
            )
