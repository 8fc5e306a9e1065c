"""The worker's NATS connection: reconnects forever once up, but gives up starting after a deadline."""

from __future__ import annotations

import asyncio
import logging

import nats
import nats.errors
from nats.aio.client import Client as NatsClient

log = logging.getLogger(__name__)


class NatsUnavailable(RuntimeError):
    """NATS did not accept a connection before the start-up deadline."""


async def _on_error(exc: Exception) -> None:
    log.warning("nats: %s: %s", type(exc).__name__, exc)


async def _on_reconnected() -> None:
    log.info("nats: reconnected")


async def connect_nats(url: str, *, name: str, deadline_s: float) -> NatsClient:
    """Connect, retrying every second until ``deadline_s`` (the launcher may start NATS just after us)."""
    nc = NatsClient()

    async def on_disconnected() -> None:
        if nc.is_closed:  # our own close() at shutdown: nothing to reconnect to
            log.info("nats: connection closed")
        else:
            log.warning("nats: disconnected, reconnecting")

    try:
        async with asyncio.timeout(deadline_s):
            await nc.connect(
                url,
                name=name,
                connect_timeout=5,
                max_reconnect_attempts=-1,
                reconnect_time_wait=1,
                error_cb=_on_error,
                disconnected_cb=on_disconnected,
                reconnected_cb=_on_reconnected,
            )
            return nc
    except (TimeoutError, OSError, nats.errors.Error) as exc:
        reason = str(exc) or "no server answered"
        raise NatsUnavailable(
            f"cannot connect to NATS at {url} within {deadline_s:g}s ({reason}); "
            "start the stack (yardstick stack up) or set NATS_URL"
        ) from exc
