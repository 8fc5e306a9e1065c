"""One NATS connection policy for every service: reconnect forever, report the state truthfully.

nats-py's defaults give up after 60 reconnect attempts 2 s apart: after about two minutes without a
server the connection is closed for good while the process keeps running and its /healthz still
says ok. Every Yardstick service instead:

- reconnects forever (``max_reconnect_attempts=-1``), every ``reconnect_wait_s`` (1 s, with
  nats-py's jitter), so a server that comes back after any outage is found again within seconds;
- logs each disconnect, reconnect and error as one structured line, and keeps a
  :class:`ConnectionHealth` that ``/healthz`` reports (503 while disconnected);
- when starting, retries the first connection until a deadline (the launcher may start NATS just
  after the service), then fails with :class:`NatsUnavailable` saying what to do.

FastStream brokers (agent, search-proxy) take the same options through :func:`connection_options`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import nats.errors
from nats.aio.client import Client as NatsClient
from pydantic import BaseModel, Field

from yardstick.api.nats_servers import nats_servers

log = logging.getLogger(__name__)

RECONNECT_WAIT_S = 1.0
LOG_EVERY_ATTEMPTS = 100


class NatsUnavailable(RuntimeError):
    """NATS did not accept a connection before the start-up deadline."""


class ConnectionHealth(BaseModel):
    """What /healthz says about a service's NATS connection."""

    connected: bool = False
    since: datetime = Field(default_factory=lambda: datetime.now(UTC), description="Of the current state")
    disconnects: int = 0
    reconnects: int = 0
    failed_attempts: int = Field(default=0, description="Reconnect attempts that failed in this outage")
    last_error: str | None = None
    server: str | None = Field(
        default=None, description="The NATS server this connection uses now (or used last), host:port"
    )

    def mark_now(self, connected: bool) -> None:
        if connected != self.connected:
            self.connected = connected
            self.since = datetime.now(UTC)

    def mark_connected(self, nc: NatsClient | None = None) -> None:
        self.mark_now(True)
        if nc is not None:
            self.server = connected_server(nc)


def connected_server(nc: NatsClient) -> str | None:
    """``host:port`` of the server ``nc`` is connected to (of a cluster, the node it reached)."""
    url = nc.connected_url
    if url is None or url.hostname is None:
        return None
    return f"{url.hostname}:{url.port}" if url.port else url.hostname


def connection_options(
    name: str,
    health: ConnectionHealth,
    client: Callable[[], NatsClient | None],
    reconnect_wait_s: float = RECONNECT_WAIT_S,
) -> dict[str, Any]:
    """``nats.connect`` / ``NatsBroker`` keyword arguments of the policy, updating ``health``.

    ``client`` returns the connection once it exists: a disconnect of a connection being closed on
    purpose (at shutdown) is logged as closed, not as an outage."""

    async def on_error(exc: Exception) -> None:
        health.last_error = f"{type(exc).__name__}: {exc}"
        if health.connected:
            log.warning("nats error", extra={"connection": name, "error": health.last_error})
            return
        health.failed_attempts += 1
        if (
            health.failed_attempts == 1 or health.failed_attempts % LOG_EVERY_ATTEMPTS == 0
        ):  # not one a second
            log.warning(
                "nats still unreachable, retrying",
                extra={"connection": name, "attempts": health.failed_attempts, "error": health.last_error},
            )

    async def on_disconnected() -> None:
        nc = client()
        health.mark_now(False)
        if nc is not None and nc.is_closed:  # our own close(): nothing to reconnect to
            return
        health.disconnects += 1
        log.warning("nats disconnected, reconnecting", extra={"connection": name})

    async def on_reconnected() -> None:
        health.reconnects += 1
        health.failed_attempts = 0
        nc = client()
        health.mark_connected(nc)
        log.info(
            "nats reconnected",
            extra={"connection": name, "reconnects": health.reconnects, "server": health.server},
        )

    async def on_closed() -> None:
        health.mark_now(False)
        log.info("nats connection closed", extra={"connection": name})

    return {
        "name": name,
        "connect_timeout": 5,
        "allow_reconnect": True,
        "max_reconnect_attempts": -1,
        "reconnect_time_wait": reconnect_wait_s,
        "error_cb": on_error,
        "disconnected_cb": on_disconnected,
        "reconnected_cb": on_reconnected,
        "closed_cb": on_closed,
    }


async def connect_nats(
    url: str,
    *,
    name: str,
    deadline_s: float = 30.0,
    health: ConnectionHealth | None = None,
    reconnect_wait_s: float = RECONNECT_WAIT_S,
) -> NatsClient:
    """Connect under the policy, retrying the first connection until ``deadline_s``.

    ``url`` is ``NATS_URL``: one server or several separated by commas (any one that answers will do,
    and the client moves to another node of the cluster when its own goes away)."""
    state = health if health is not None else ConnectionHealth()
    nc = NatsClient()
    try:
        async with asyncio.timeout(deadline_s):  # nats-py retries the first connect forever too
            await nc.connect(
                servers=nats_servers(url), **connection_options(name, state, lambda: nc, reconnect_wait_s)
            )
    except (TimeoutError, OSError, nats.errors.Error) as exc:
        reason = state.last_error or str(exc) or "no server answered"
        raise NatsUnavailable(
            f"cannot connect to NATS at {url} within {deadline_s:g}s ({reason}); "
            "start the stack (yardstick stack up) or set NATS_URL"
        ) from exc
    state.mark_connected(nc)
    return nc
