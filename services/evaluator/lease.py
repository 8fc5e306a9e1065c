"""Keep a JetStream message's lease while a long task runs (``+WPI`` in-progress acks)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

from nats.aio.msg import Msg

log = logging.getLogger(__name__)


async def _beat(msg: Msg, interval_s: float) -> None:
    while True:
        await asyncio.sleep(interval_s)
        try:
            await msg.in_progress()
        except Exception as exc:  # a lost heartbeat only risks a redelivery, which is idempotent
            log.warning("in-progress ack failed: %s", exc)


@contextlib.asynccontextmanager
async def keep_lease(msg: Msg, interval_s: float) -> AsyncIterator[None]:
    """Send ``in_progress()`` every ``interval_s`` until the block exits."""
    beat = asyncio.create_task(_beat(msg, interval_s), name="lease-heartbeat")
    try:
        yield
    finally:
        beat.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await beat
