"""Start a FastStream NATS broker so that its request/reply endpoints are live on return.

``broker.start()`` queues the SUB commands for the server and returns before the server has
applied them; a request sent from another connection in that gap gets "no responders". A flush is
a PING/PONG round trip, and the server answers the PONG only after the SUBs sent before it, so
after it every core subscription of the broker is registered.
"""

from __future__ import annotations

from faststream.nats import NatsBroker


async def start_serving(broker: NatsBroker) -> None:
    """``broker.start()``, then wait until the server has registered its subscriptions."""
    await broker.start()
    await broker.connection.flush()
