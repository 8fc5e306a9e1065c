"""``subscriptions_registered`` on the real server, through a proxy that records the bytes the
client writes: when it returns, a PING was written after every SUB, so the PONG it waited for
proves the server applied them. ``nc.flush()`` alone fails this check (its PING overtakes the SUB
still in nats-py's pending buffer)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from urllib.parse import urlsplit

import nats
import pytest
from nats.aio.client import Client as NatsClient

from yardstick.api.nats_interest import subscriptions_registered
from yardstick.api.topology import Topology

pytestmark = [pytest.mark.integration, pytest.mark.timeout(60)]


class RecordingProxy:
    """A TCP proxy to the NATS server keeping every byte clients send it."""

    def __init__(self, upstream: str) -> None:
        url = urlsplit(upstream)
        self.host, self.port = url.hostname or "127.0.0.1", url.port or 4222
        self.sent = bytearray()
        self._server: asyncio.Server | None = None
        self._pumps: set[asyncio.Task[None]] = set()

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"nats://127.0.0.1:{self._server.sockets[0].getsockname()[1]}"

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)

    async def stop(self) -> None:
        for pump in self._pumps:
            pump.cancel()
        if self._server is not None:
            self._server.close()

    async def _accept(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        server_r, server_w = await asyncio.open_connection(self.host, self.port)
        pumps = (self._pump(client_r, server_w, record=True), self._pump(server_r, client_w, record=False))
        for pump in pumps:
            task = asyncio.create_task(pump)
            self._pumps.add(task)
            task.add_done_callback(self._pumps.discard)

    async def _pump(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *, record: bool
    ) -> None:
        with contextlib.suppress(ConnectionError):
            while data := await reader.read(65536):
                if record:
                    self.sent.extend(data)
                writer.write(data)
                await writer.drain()
        writer.close()


@pytest.fixture
async def proxied(nats_url: str) -> AsyncIterator[tuple[RecordingProxy, NatsClient]]:
    proxy = RecordingProxy(nats_url)
    await proxy.start()
    nc = await nats.connect(proxy.url)
    yield proxy, nc
    await nc.close()
    await proxy.stop()


def last_ping_follows_the_sub(sent: bytes, subject: str) -> bool:
    sub_at = sent.find(f"SUB {subject} ".encode())
    return sub_at >= 0 and sent.rfind(b"PING\r\n") > sub_at


async def noop(_: object) -> None:
    return None


Barrier = Callable[[NatsClient], Awaitable[None]]


async def subscribe_then(barrier: Barrier, proxy: RecordingProxy, nc: NatsClient, subject: str) -> bool:
    await nc.subscribe(subject, cb=noop)
    await barrier(nc)
    return last_ping_follows_the_sub(bytes(proxy.sent), subject)


async def test_the_barrier_pings_after_the_sub_reached_the_wire(
    proxied: tuple[RecordingProxy, NatsClient], topology: Topology
) -> None:
    proxy, nc = proxied
    assert await subscribe_then(subscriptions_registered, proxy, nc, f"{topology.namespace}.a")


async def test_a_single_flush_pings_before_the_pending_sub(
    proxied: tuple[RecordingProxy, NatsClient], topology: Topology
) -> None:
    """Why the barrier exists; if a nats-py release fixes flush, this fails and the barrier can go."""
    proxy, nc = proxied
    assert not await subscribe_then(lambda c: c.flush(), proxy, nc, f"{topology.namespace}.b")
