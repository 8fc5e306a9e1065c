"""The pull loop over the durable ``SAMPLER_CONSUMER``: one turn at a time, ack after commit.

Turns are handled in delivery order (not concurrently) so a conversation's previous response is
known when its next turn arrives. A turn that is not valid JSON for ``TrafficTurn`` is terminated;
a database failure naks it with a delay so JetStream redelivers it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

import nats.errors
from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg
from nats.js import JetStreamContext
from nats.js.errors import NotFoundError

from services.sampler.turn_handler import TurnHandler
from shared.contracts.agent_messages import TrafficTurn
from shared.contracts.topology import SAMPLER_CONSUMER, Topology
from shared.messaging import decode_or_terminate, settle
from shared.messaging.pull import fetch_ready

log = logging.getLogger(__name__)

RETRY_DELAY_S = 2.0
FETCH_ERROR_PAUSE_S = 0.5


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
        self._batch = batch
        self._fetch_timeout_s = fetch_timeout_s
        self._sub: JetStreamContext.PullSubscription | None = None
        self._task: asyncio.Task[None] | None = None
        self._stopping = False

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    async def start(self) -> None:
        js = self._nc.jetstream()
        stream = self._topology.traffic_stream
        try:
            await js.consumer_info(stream, SAMPLER_CONSUMER)
        except NotFoundError as exc:
            raise SamplerStartError(
                f"durable consumer {SAMPLER_CONSUMER!r} on stream {stream} is not declared: run the "
                "stack launcher (it declares streams) or shared.streams.declare()"
            ) from exc
        self._sub = await js.pull_subscribe_bind(durable=SAMPLER_CONSUMER, stream=stream)
        self._task = asyncio.create_task(self._loop(), name="sampler-fetch-loop")
        log.info("sampler consuming", extra={"stream": stream, "consumer": SAMPLER_CONSUMER})

    async def _loop(self) -> None:
        assert self._sub is not None
        while not self._stopping:
            try:
                msgs = await fetch_ready(self._sub, self._batch, self._fetch_timeout_s)
            except TimeoutError:
                continue
            except nats.errors.ConnectionClosedError:
                return
            except nats.errors.Error as exc:
                log.warning("fetch failed, pausing: %s", exc)
                await asyncio.sleep(FETCH_ERROR_PAUSE_S)
                continue
            for msg in msgs:
                if self._stopping:
                    await msg.nak()
                else:
                    await self._settle(msg)

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
        self._stopping = True
        if self._task is not None:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(self._task, timeout=self._fetch_timeout_s + 5.0)
        if self._sub is not None:
            with contextlib.suppress(nats.errors.Error):
                await self._sub.unsubscribe()
