"""The sampler's consumer of ``traffic.spans`` (durable ``SAMPLER_SPANS_CONSUMER``): spans into traces,
traces sampled, stored and scored; a message acknowledged once every span it carried is stored.

- Messages come one at a time from the shared :class:`~shared.messaging.PullLoop`; their spans go
  into the :class:`~shared.traces.TraceAssembler`, and the message is held (see
  :mod:`services.sampler.message_holds`). A message that is not a ``SpanBatch`` is terminated.
- A ticker hands on the traces the assembler says are complete and stores them in chunks of up to
  ``store_batch`` parts, each chunk one transaction of a few statements (up to ``store_concurrency``
  chunks at once: :meth:`~services.sampler.trace_handler.TraceHandler.handle_many`), then, once the
  chunk committed, acknowledges (confirmed ACKs, sent together) the messages no open part holds any
  more. It also tells JetStream a
  held message is still being worked on (``+WPI``) before its ``ack_wait`` runs out: a trace may
  stay open for ``quiet_s``.
- At most ``max_held`` messages are held: the pull loop fetches nothing more until some are acked.
- A chunk that cannot be stored (database down) gives its parts' messages back with a delay (NAK);
  their spans come again and are merged idempotently. On stop, every held message is given back at
  once (NAK), so another sampler assembles those traces whole.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from dataclasses import dataclass, field

import nats.errors
from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg
from nats.js import JetStreamContext

from services.sampler.message_holds import MessageHolds
from services.sampler.trace_handler import TraceHandler
from services.sampler.trace_store import TracePart
from shared.contracts.span_messages import SpanBatch
from shared.messaging import ConsumerNotDeclared, PullLoop, bind_durable, decode_or_terminate, settle
from shared.messaging.streams import TRAFFIC_SPANS_ACK_WAIT_S
from shared.traces import AssembledTrace, AssemblyPolicy, TraceAssembler
from yardstick.api.topology import SAMPLER_SPANS_CONSUMER, Topology

log = logging.getLogger(__name__)

RETRY_DELAY_S = 2.0
MAX_RETRY_DELAY_S = 60.0
LEASE_CHECK_EVERY_S = 0.5


class SpanConsumerStartError(RuntimeError):
    """The durable consumer is not declared on the spans stream."""


@dataclass
class _Held:
    msg: Msg
    progress_at: float = field(default_factory=time.monotonic)


class SpanConsumer:
    def __init__(
        self,
        nc: NatsClient,
        topology: Topology,
        handler: TraceHandler,
        policy: AssemblyPolicy,
        *,
        batch: int = 50,
        fetch_timeout_s: float = 1.0,
        tick_s: float = 0.25,
        max_held: int = 5_000,
        ack_wait_s: float = TRAFFIC_SPANS_ACK_WAIT_S,
        store_concurrency: int = 2,
        store_batch: int = 200,
    ) -> None:
        self._nc = nc
        self._topology = topology
        self.handler = handler
        self.assembler = TraceAssembler(policy)
        self._holds: MessageHolds[int] = MessageHolds()
        self._held: dict[int, _Held] = {}
        self._ids = itertools.count()
        self._tick_s = tick_s
        self._max_held = max_held
        self._progress_every_s = ack_wait_s / 3
        self._leases_checked_at = 0.0
        self._lock = asyncio.Lock()
        self._storing = asyncio.Semaphore(store_concurrency)
        self._store_batch = store_batch
        self._pull = PullLoop(
            "sampler-spans",
            batch=batch,
            wait_s=fetch_timeout_s,
            on_message=self._take,
            room=lambda: self._max_held - len(self._holds),
        )
        self._sub: JetStreamContext.PullSubscription | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._stopping = asyncio.Event()

    @property
    def running(self) -> bool:
        return bool(self._tasks) and not any(task.done() for task in self._tasks)

    @property
    def held(self) -> int:
        return len(self._holds)

    async def start(self) -> None:
        stream = self._topology.traffic_spans_stream
        try:
            self._sub, _ = await bind_durable(self._nc.jetstream(), stream, SAMPLER_SPANS_CONSUMER)
        except ConsumerNotDeclared as exc:
            raise SpanConsumerStartError(str(exc)) from exc
        self._tasks = [
            asyncio.create_task(self._pull.run(self._sub), name="sampler-spans-fetch"),
            asyncio.create_task(self._tick_loop(), name="sampler-spans-ticker"),
        ]
        log.info("sampler consuming spans", extra={"stream": stream, "consumer": SAMPLER_SPANS_CONSUMER})

    async def _take(self, msg: Msg) -> None:
        batch = await decode_or_terminate(msg, SpanBatch)
        if batch is None:
            return
        async with self._lock:
            handle = next(self._ids)
            self.assembler.add(batch, time.monotonic())
            keys = {(batch.project_id, span.trace_id) for _, span in batch.spans()}
            if self._holds.hold(handle, keys):
                self._held[handle] = _Held(msg)
                held = True
            else:
                held = False
        if not held:
            await settle(msg, "ack")  # no spans: nothing to store
        if self.assembler.has_handed:  # a span bound or eviction handed a part on early
            await self.tick()

    async def tick(self) -> None:
        """Store the traces complete now, acknowledge what they freed, extend the rest's leases."""
        async with self._lock:
            parts = self.assembler.ready(time.monotonic())
            holding = [
                (part, self._holds.hand_on(key, self.assembler.is_open(*key)))
                for part in parts
                for key in [(part.project_id, part.trace_id)]
            ]
        chunks = [holding[i : i + self._store_batch] for i in range(0, len(holding), self._store_batch)]
        await asyncio.gather(*(self._store_bounded(chunk) for chunk in chunks))

    async def _store_bounded(self, chunk: list[tuple[AssembledTrace, set[int]]]) -> None:
        """At most ``store_concurrency`` chunks of traces stored at once, each in one transaction."""
        async with self._storing:
            await self._store(chunk)
        await self._extend_leases()  # storing many parts (a slow judge) can outlast ack_wait

    async def _store(self, chunk: list[tuple[AssembledTrace, set[int]]]) -> None:
        parts = [TracePart(a.project_id, a.trace_id, a.spans, a.completeness) for a, _ in chunk]
        handles = [h for _, held in chunk for h in held]
        try:
            await self.handler.handle_many(parts)
        except Exception:
            log.exception("could not store %d traces; their spans will be redelivered", len(parts))
            await self._give_back(set(handles), delayed=True)
            return
        to_ack: list[Msg] = []
        for _, held in chunk:
            self._holds.release(held, lambda h: to_ack.append(self._held.pop(h).msg))
        await asyncio.gather(*(settle(msg, "ack") for msg in to_ack))  # confirmed, not one by one
        if to_ack:
            self._pull.wake()

    async def _give_back(self, handles: set[int], *, delayed: bool) -> None:
        self._holds.drop(handles)
        for handle in handles:
            held = self._held.pop(handle, None)
            if held is None:
                continue
            delay = None
            if delayed:
                attempt = held.msg.metadata.num_delivered or 1
                delay = min(RETRY_DELAY_S * 2 ** (attempt - 1), MAX_RETRY_DELAY_S)
            with contextlib.suppress(nats.errors.Error):
                await held.msg.nak(delay=delay)
        self._pull.wake()

    async def _extend_leases(self) -> None:
        now = time.monotonic()
        if now - self._leases_checked_at < LEASE_CHECK_EVERY_S:
            return
        self._leases_checked_at = now
        for held in list(self._held.values()):
            if now - held.progress_at >= self._progress_every_s:
                held.progress_at = now
                with contextlib.suppress(nats.errors.Error):
                    await held.msg.in_progress()

    async def _tick_loop(self) -> None:
        while not self._stopping.is_set():
            try:
                await self.tick()
            except Exception:
                log.exception("sampler tick failed")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), self._tick_s)

    async def stop(self) -> None:
        """Stop fetching and ticking; give every held message back. Idempotent."""
        self._pull.stop()
        self._stopping.set()
        for task in self._tasks:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(task, timeout=self._pull.wait_s + 5.0)
        async with self._lock:
            self.assembler.flush()  # forgotten here: the messages below bring the spans back
            await self._give_back(set(self._held), delayed=False)
        if self._sub is not None:
            with contextlib.suppress(nats.errors.Error):
                await self._sub.unsubscribe()
