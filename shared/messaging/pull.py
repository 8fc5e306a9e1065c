"""Fetching from a JetStream pull consumer without waiting to fill a batch.

nats-py's ``fetch(batch=n, timeout=t)``, when nothing is waiting, keeps collecting until it has n
messages or t has passed: with n=200 and t=1 s a trickle of results is held for up to a second.
:func:`fetch_ready` waits only for the FIRST message, then takes whatever else is already there.
"""

from __future__ import annotations

import contextlib

from nats.aio.msg import Msg
from nats.js import JetStreamContext


async def fetch_ready(sub: JetStreamContext.PullSubscription, batch: int, wait_s: float) -> list[Msg]:
    """Up to ``batch`` messages: block up to ``wait_s`` for one, then add those already pending.

    Raises ``TimeoutError`` when nothing arrived within ``wait_s``.
    """
    msgs = await sub.fetch(1, timeout=wait_s)
    if batch > 1:
        with contextlib.suppress(TimeoutError):
            msgs += await sub.fetch(batch - 1, timeout=0.01)
    return msgs
