"""The sampler's consumer of the durable ``SAMPLER_CONSUMER``: one turn at a time, ack after commit.

Turns are handled in delivery order (not concurrently, the shared
:class:`~shared.messaging.PullLoop` hands them over one by one) so a conversation's previous
response is known when its next turn arrives. A turn that is not valid JSON for ``TrafficTurn`` is
terminated; a database failure naks it with a delay so JetStream redelivers it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

import nats.errors
from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg
from nats.js import JetStreamContext

from services.sampler.turn_handler import TurnHandler
from shared.contracts.agent_messages import TrafficTurn
from shared.contracts.topology import SAMPLER_CONSUMER, Topology
from shared.messaging import ConsumerNotDeclared, PullLoop, bind_durable, decode_or_terminate, settle

log = logging.getLogger(__name__)

RETRY_DELAY_S = 2.0


class SamplerStartError(RuntimeError):
    """The durable consumer is not declared on the traffic stream."""


class SamplerConsumer:
    def __init__(
        self,
        nc: NatsClient,
        topology: Topology,
        handler: TurnHandler,
        batch: int = 50,
        fetch_timeout_s: float = 1.0,
    ) -> None:
        self._nc = nc
        self._topology = topology
        self.handler = handler
        self._fetch_timeout_s = fetch_timeout_s
        self._pull = PullLoop("sampler", batch=batch, wait_s=fetch_timeout_s, on_message=self._settle)
        self._sub: JetStreamContext.PullSubscription | None = None
        self._task: asyncio.Task[None] | None = None

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    async def start(self) -> None:
        stream = self._topology.traffic_stream
        try:
            self._sub, _ = await bind_durable(self._nc.jetstream(), stream, SAMPLER_CONSUMER)
        except ConsumerNotDeclared as exc:
            raise SamplerStartError(str(exc)) from exc
        self._task = asyncio.create_task(self._pull.run(self._sub), name="sampler-fetch-loop")
        log.info("sampler consuming", extra={"stream": stream, "consumer": SAMPLER_CONSUMER})

    async def _settle(self, msg: Msg) -> None:
        turn = await decode_or_terminate(msg, TrafficTurn)
        if turn is None:
            return
        try:
            await self.handler.handle(turn)
        except Exception:
            log.exception("could not store turn %s; redelivering in %.1fs", turn.msg_id, RETRY_DELAY_S)
            with contextlib.suppress(nats.errors.Error):
                await msg.nak(delay=RETRY_DELAY_S)
            return
        await settle(msg, "ack")

    async def stop(self) -> None:
        """Finish the current turn, then stop fetching. Idempotent; the connection is the caller's."""
        self._pull.stop()
        if self._task is not None:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(self._task, timeout=self._fetch_timeout_s + 5.0)
        if self._sub is not None:
            with contextlib.suppress(nats.errors.Error):
                await self._sub.unsubscribe()
