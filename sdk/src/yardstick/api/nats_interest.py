"""Wait until the server has registered this connection's subscriptions.

A service says "ready", or a test sends its first request, only once its core-NATS subscriptions
exist on the server; otherwise a request sent from another connection in that gap gets "no
responders" and an event published then is lost.

``nc.flush()`` alone is not that barrier in nats-py 2.16: ``subscribe`` appends the SUB to the
client's pending buffer and wakes the flusher task, but ``flush`` writes its PING straight to the
transport, so the PING can overtake a SUB the flusher has not written yet, and the PONG then proves
nothing about it (measured: 4 of 300 FastStream starts on a loaded machine answered "no
responders" right after ``flush``). The flusher task is woken before the first PING goes out, so
it writes every pending command while we wait for the first PONG; a second round trip, sent after
those commands, is answered only after the server applied them.
"""

from __future__ import annotations

from nats.aio.client import Client as NatsClient

FLUSH_TIMEOUT_S = 10


async def subscriptions_registered(nc: NatsClient, timeout_s: int = FLUSH_TIMEOUT_S) -> None:
    """Return once every subscription made on ``nc`` so far is live on the server."""
    await nc.flush(timeout_s)  # the flusher writes the pending SUBs while this waits
    await nc.flush(timeout_s)  # its PING follows those SUBs on the wire
