"""A broker started with ``start_serving`` answers a request sent the moment it returns."""

from __future__ import annotations

import pytest
from faststream.nats import NatsBroker
from nats.aio.client import Client as NatsClient

from shared.contracts.topology import Topology
from shared.faststream_broker import start_serving

pytestmark = [pytest.mark.integration, pytest.mark.timeout(60)]

STARTS = 25


async def test_request_right_after_start_finds_the_responder(
    nats_url: str, nats_client: NatsClient, topology: Topology
) -> None:
    subject = f"{topology.namespace}.echo"
    for attempt in range(STARTS):
        broker = NatsBroker(nats_url)

        @broker.subscriber(subject)
        async def echo(body: str) -> str:
            return body.upper()

        await start_serving(broker)
        try:
            reply = await nats_client.request(subject, f"ping {attempt}".encode(), timeout=5)
            assert reply.data == f"PING {attempt}".encode()
        finally:
            await broker.stop()
