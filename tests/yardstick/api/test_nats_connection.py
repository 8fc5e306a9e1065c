"""The one NATS connection policy on the real server: reconnect forever, health that tells the truth,
our own close not reported as an outage."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest

from services.stack.servers import free_port, start_nats
from yardstick.api.nats_connection import ConnectionHealth, NatsUnavailable, connect_nats

pytestmark = pytest.mark.timeout(60)


@pytest.mark.integration
async def test_closing_logs_closed_not_a_reconnect_warning(
    nats_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    health = ConnectionHealth()
    nc = await connect_nats(nats_url, name="test", deadline_s=5, health=health)
    assert nc.is_connected and health.connected
    with caplog.at_level(logging.INFO, logger="yardstick.api.nats_connection"):
        await nc.close()
    messages = [(r.levelno, r.getMessage()) for r in caplog.records]
    assert (logging.INFO, "nats connection closed") in messages
    assert not [m for level, m in messages if level >= logging.WARNING], messages
    assert not health.connected and health.disconnects == 0


@pytest.mark.unit
async def test_no_server_within_the_deadline_says_what_to_do(unused_tcp_port: int) -> None:
    with pytest.raises(NatsUnavailable, match=r"within 0\.5s .*yardstick stack up"):
        await connect_nats(f"nats://127.0.0.1:{unused_tcp_port}", name="test", deadline_s=0.5)


async def _until(predicate: object, timeout_s: float = 20.0) -> None:
    async with asyncio.timeout(timeout_s):
        while not predicate():  # type: ignore[operator]
            await asyncio.sleep(0.05)


@pytest.mark.integration
async def test_an_outage_longer_than_nats_pys_reconnect_budget(tmp_path: Path) -> None:
    """nats-py's default gives up after 60 reconnect attempts. The server stays down until well over
    60 attempts were made (20 ms apart); the connection then comes back by itself when the server
    does, and health said disconnected meanwhile."""
    port = free_port()
    server = start_nats(port, tmp_path / "store", tmp_path / "nats.log")
    health = ConnectionHealth()
    nc = await connect_nats(
        f"nats://127.0.0.1:{port}", name="outage", deadline_s=10, health=health, reconnect_wait_s=0.02
    )
    try:
        server.terminate()
        server.wait(10)
        await _until(lambda: not health.connected)
        assert health.disconnects == 1
        # nats-py counts attempts per server in its pool (private, but the count is the point here)
        await _until(lambda: sum(s.reconnects for s in nc._server_pool) > 100)
        assert not nc.is_closed, "the client gave up reconnecting"
        server = start_nats(port, tmp_path / "store", tmp_path / "nats.log")
        await _until(lambda: health.connected)
        assert health.reconnects == 1 and nc.is_connected
        await nc.publish("outage.ping", b"x")
        await nc.flush(timeout=5)
    finally:
        await nc.close()
        server.terminate()
        server.wait(10)


@pytest.mark.integration
async def test_a_list_starts_while_its_first_server_is_down_and_health_names_the_one_in_use(
    nats_url: str, unused_tcp_port: int
) -> None:
    """With one URL a service cannot start while that node is down; with a list any node will do."""
    health = ConnectionHealth()
    servers = f"nats://127.0.0.1:{unused_tcp_port},{nats_url}"
    nc = await connect_nats(servers, name="list", deadline_s=10, health=health)
    try:
        assert nc.is_connected and health.connected
        assert health.server == nats_url.removeprefix("nats://")
    finally:
        await nc.close()
