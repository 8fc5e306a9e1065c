"""The JetStream pull loop, written once: the eval workers, the sampler and the coordinator's
collector each run one :class:`PullLoop` over their durable consumer.

What the loop does for all of them:

- binds to a declared durable consumer (:func:`bind_durable`; :class:`ConsumerNotDeclared` says how
  to declare it);
- asks for at most ``room()`` messages (a worker's free slots) and waits for :meth:`PullLoop.wake`
  while there is none;
- fetches without waiting to fill a batch (:func:`fetch_ready`); an empty fetch is no error;
- pauses :data:`FETCH_ERROR_PAUSE_S` after a failed fetch and tries again (the connection
  reconnects by itself); a connection closed while the loop is not stopping is raised;
- on :meth:`PullLoop.stop`: fetches nothing more, gives back (NAK, no delay: redelivered to another
  consumer at once) what it fetched but did not hand over, and what a late pull left in the inbox.

What it never does: settle a message it handed over. ACK after the work is durable, NAK with a delay,
TERM for what can never succeed: those decisions stay in each consumer's handler, where they are read.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

import nats.errors
from nats.aio.msg import Msg
from nats.js import JetStreamContext
from nats.js.api import ConsumerInfo
from nats.js.errors import NotFoundError

from shared.messaging.election import through_election

log = logging.getLogger(__name__)

FETCH_ERROR_PAUSE_S = 0.5
"""After a failed fetch (server restarting, leader election, reconnect): how long before the next."""

BatchHandler = Callable[[list[Msg]], Awaitable[None]]
MessageHandler = Callable[[Msg], Awaitable[None]]


class ConsumerNotDeclared(RuntimeError):
    """The durable consumer a service binds to is not declared on its stream."""


async def bind_durable(
    js: JetStreamContext, stream: str, durable: str
) -> tuple[JetStreamContext.PullSubscription, ConsumerInfo]:
    """A pull subscription bound to the declared durable ``durable`` on ``stream``, and its info
    (asked again through a leader election, e.g. while a cluster node is replaced)."""

    async def ask(try_timeout_s: float) -> ConsumerInfo:
        info: ConsumerInfo = await js.consumer_info(stream, durable, timeout=try_timeout_s)
        return info

    try:
        info = await through_election(ask, what=f"consumer {durable} on {stream}")
    except NotFoundError as exc:
        raise ConsumerNotDeclared(
            f"durable consumer {durable!r} on stream {stream} is not declared: run the stack launcher "
            "(it declares streams) or shared.messaging.streams.declare()"
        ) from exc
    return await js.pull_subscribe_bind(durable=durable, stream=stream), info


async def fetch_ready(sub: JetStreamContext.PullSubscription, batch: int, wait_s: float) -> list[Msg]:
    """Up to ``batch`` messages: block up to ``wait_s`` for one, then add those already pending.

    nats-py's ``fetch(batch=n, timeout=t)``, when nothing is waiting, keeps collecting until it has
    n messages or t has passed: with n=200 and t=1 s a trickle of results would be held for up to a
    second. Raises ``TimeoutError`` when nothing arrived within ``wait_s``.
    """
    msgs = await sub.fetch(1, timeout=wait_s)
    if batch > 1:
        with contextlib.suppress(TimeoutError):
            msgs += await sub.fetch(batch - 1, timeout=0.01)
    return msgs


async def give_back(msgs: list[Msg]) -> None:
    """NAK without delay: JetStream redelivers each message (to any consumer) at once."""
    for msg in msgs:
        with contextlib.suppress(nats.errors.Error):
            await msg.nak()


class PullLoop:
    """Fetch from one pull subscription until stopped, handing messages over as they arrive.

    Give exactly one handler: ``on_batch`` receives each fetched batch whole (the collector writes
    batches); ``on_message`` receives the messages one at a time, in order, and a stop between two
    of them gives the rest back (the sampler). ``room`` returns how many messages the consumer can
    take now (default: ``batch``); when it returns 0 the loop waits for :meth:`wake`.
    """

    def __init__(
        self,
        name: str,
        *,
        batch: int,
        wait_s: float,
        on_batch: BatchHandler | None = None,
        on_message: MessageHandler | None = None,
        room: Callable[[], int] | None = None,
    ) -> None:
        if (on_batch is None) == (on_message is None):
            raise ValueError("PullLoop needs exactly one of on_batch and on_message")
        self.name = name
        self.batch = batch
        self.wait_s = wait_s
        self._on_batch = on_batch
        self._on_message = on_message
        self._room = room
        self._wake = asyncio.Event()
        self._stopping = False

    @property
    def stopping(self) -> bool:
        return self._stopping

    def wake(self) -> None:
        """Room was made (a task finished): fetch again if the loop was waiting for it."""
        self._wake.set()

    def stop(self) -> None:
        """Fetch nothing more; :meth:`run` returns once the batch in hand is handed over or given back."""
        self._stopping = True
        self._wake.set()

    async def run(self, sub: JetStreamContext.PullSubscription) -> None:
        while not self._stopping:
            room = self.batch if self._room is None else min(self.batch, self._room())
            if room <= 0:
                self._wake.clear()
                await self._wake.wait()
                continue
            try:
                msgs = await fetch_ready(sub, room, self.wait_s)
            except TimeoutError:
                continue
            except nats.errors.ConnectionClosedError:
                if self._stopping:
                    return
                raise
            except nats.errors.Error as exc:
                log.warning("%s: fetch failed, pausing %.1fs: %s", self.name, FETCH_ERROR_PAUSE_S, exc)
                await asyncio.sleep(FETCH_ERROR_PAUSE_S)
                continue
            await self._hand_over(msgs)
        await self._give_back_buffered(sub)

    async def _hand_over(self, msgs: list[Msg]) -> None:
        if self._on_batch is not None:
            if self._stopping:
                await give_back(msgs)
            else:
                await self._on_batch(msgs)
            return
        assert self._on_message is not None
        for i, msg in enumerate(msgs):
            if self._stopping:
                await give_back(msgs[i:])
                return
            await self._on_message(msg)

    async def _give_back_buffered(self, sub: JetStreamContext.PullSubscription) -> None:
        """Messages a late pull delivered into the inbox go back instead of waiting out ack_wait."""
        while sub.pending_msgs > 0:
            try:
                msgs = await sub.fetch(batch=1, timeout=0.2)
            except (TimeoutError, nats.errors.Error):
                return
            await give_back(msgs)


__all__ = [
    "FETCH_ERROR_PAUSE_S",
    "BatchHandler",
    "ConsumerNotDeclared",
    "MessageHandler",
    "PullLoop",
    "bind_durable",
    "fetch_ready",
    "give_back",
]
