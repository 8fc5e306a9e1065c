"""A broker started with ``start_serving`` answers a request sent the moment it returns.

The request goes out on a plain blocking socket, without yielding to the event loop, so it reaches
the server before anything the broker's connection still holds in its write buffer: without the
flush in ``start_serving`` the SUB is still in that buffer and the server answers "no responders".
"""

from __future__ import annotations

import asyncio
import socket
from urllib.parse import urlsplit

import pytest
from faststream.nats import NatsBroker

from shared.messaging.faststream_broker import start_serving
from yardstick.api.topology import Topology

pytestmark = [pytest.mark.integration, pytest.mark.timeout(60)]

INBOX = "_INBOX.raw"


def raw_client(nats_url: str) -> socket.socket:
    """A NATS protocol connection subscribed to INBOX, handshake complete (PONG received)."""
    url = urlsplit(nats_url)
    sock = socket.create_connection((url.hostname, url.port), timeout=10)
    connect = b'CONNECT {"verbose":false,"headers":true,"no_responders":true,"protocol":1}\r\n'
    sock.sendall(connect + f"SUB {INBOX} 1\r\nPING\r\n".encode())
    received = b""
    while b"PONG\r\n" not in received:
        received += sock.recv(4096)
    return sock


def read_reply(sock: socket.socket, expected: bytes) -> bytes:
    """Bytes received until the echoed payload or a status line arrives."""
    received = b""
    while expected not in received and b"NATS/1.0 503" not in received:
        received += sock.recv(4096)
    return received


async def test_a_request_sent_the_moment_it_returns_finds_the_responder(
    nats_url: str, topology: Topology
) -> None:
    subject = f"{topology.namespace}.echo"
    sock = raw_client(nats_url)
    broker = NatsBroker(nats_url)

    @broker.subscriber(subject)
    async def echo(body: str) -> str:
        return body.upper()

    try:
        await start_serving(broker)
        sock.sendall(f"PUB {subject} {INBOX} 4\r\nping\r\n".encode())  # no await before this
        reply = await asyncio.to_thread(read_reply, sock, b"PING")
        assert b"NATS/1.0 503" not in reply, "no responders: the SUB had not reached the server"
        assert b"PING" in reply
    finally:
        sock.close()
        await broker.stop()
