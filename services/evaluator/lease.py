"""Keep a JetStream message's lease while a long task runs (``+WPI`` in-progress acks).

A timer on the event loop, not a task: every task holds a lease, few run long enough to need a
beat, and a timer costs a small fraction of creating, cancelling and awaiting a task per delivery.
"""

from __future__ import annotations

import asyncio
import logging
from types import TracebackType

import nats.errors
from nats.aio.msg import Msg

log = logging.getLogger(__name__)


def keep_lease(msg: Msg, interval_s: float) -> Lease:
    """``async with keep_lease(msg, interval_s):`` sends ``in_progress()`` every ``interval_s``
    until the block exits."""
    return Lease(msg, interval_s)


class Lease:
    """The in-progress acks of one delivery while its block runs (see :func:`keep_lease`)."""

    def __init__(self, msg: Msg, interval_s: float) -> None:
        self._msg = msg
        self._interval_s = interval_s
        self._timer: asyncio.TimerHandle | None = None
        self._sending: set[asyncio.Task[None]] = set()

    async def __aenter__(self) -> None:
        self.start()

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def start(self) -> None:
        """Beat every ``interval_s`` from now (for a lease that outlives one block: a task batch)."""
        self._timer = asyncio.get_running_loop().call_later(self._interval_s, self._beat)

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        for sending in self._sending:
            sending.cancel()

    def _beat(self) -> None:
        sending = asyncio.get_running_loop().create_task(self._send(), name="lease-heartbeat")
        self._sending.add(sending)
        sending.add_done_callback(self._sending.discard)
        self._timer = asyncio.get_running_loop().call_later(self._interval_s, self._beat)

    async def _send(self) -> None:
        try:
            await self._msg.in_progress()
        except nats.errors.ConnectionClosedError:
            # The worker closed its connection (stopping, or killed in a test) with this delivery
            # unsettled: no later beat can be sent, and JetStream redelivers it after its ack wait.
            self.stop()
            log.info("lease ends: the connection is closed; the delivery will be redelivered")
        except Exception as exc:  # a lost heartbeat only risks a redelivery, which is idempotent
            log.warning("in-progress ack failed: %s", exc)
