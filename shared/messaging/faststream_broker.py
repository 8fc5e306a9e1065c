"""FastStream NATS brokers for the services that answer requests (agent, search-proxy).

``new_broker`` routes FastStream's own logs through the service's logger, so they come out as the
service's structured JSON lines; by default FastStream writes them with its own colourised handler
and a "Received"/"Processed" pair per message at INFO. Those per-message lines are at DEBUG here.

``start_serving`` starts a broker so that its request/reply endpoints are live on return:
``broker.start()`` queues the SUB commands for the server and returns before the server has
applied them; a request sent from another connection in that gap gets "no responders". It waits
with :func:`~yardstick.api.nats_interest.subscriptions_registered` (why one ``flush`` is not enough
is told there).
"""

from __future__ import annotations

import logging

from faststream.nats import NatsBroker
from nats.aio.client import Client as NatsClient

from yardstick.api.nats_connection import RECONNECT_WAIT_S, ConnectionHealth, connection_options
from yardstick.api.nats_interest import subscriptions_registered
from yardstick.api.nats_servers import nats_servers


def new_broker(
    nats_url: str,
    logger_name: str,
    health: ConnectionHealth,
    name: str,
    reconnect_wait_s: float = RECONNECT_WAIT_S,
) -> NatsBroker:
    """A broker under the one connection policy (reconnects forever; ``health`` for /healthz)."""
    broker: NatsBroker | None = None

    def client() -> NatsClient | None:
        return broker.connection if broker is not None and broker.running else None

    broker = NatsBroker(
        nats_servers(nats_url),
        logger=logging.getLogger(logger_name),
        log_level=logging.DEBUG,
        **connection_options(name, health, client, reconnect_wait_s),
    )
    return broker


async def start_serving(broker: NatsBroker, health: ConnectionHealth | None = None) -> None:
    """``broker.start()``, then wait until the server has registered its subscriptions."""
    await broker.start()
    await subscriptions_registered(broker.connection)
    if health is not None:
        health.mark_connected(broker.connection)
