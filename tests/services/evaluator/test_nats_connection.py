"""The worker's NATS connection on the real server: our own close is not reported as an outage."""

from __future__ import annotations

import logging

import pytest

from services.evaluator.nats_connection import NatsUnavailable, connect_nats

pytestmark = pytest.mark.timeout(30)


@pytest.mark.integration
async def test_closing_logs_closed_not_a_reconnect_warning(
    nats_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    nc = await connect_nats(nats_url, name="test", deadline_s=5)
    assert nc.is_connected
    with caplog.at_level(logging.INFO, logger="services.evaluator.nats_connection"):
        await nc.close()
    messages = [(r.levelno, r.getMessage()) for r in caplog.records]
    assert (logging.INFO, "nats: connection closed") in messages
    assert not [m for level, m in messages if level >= logging.WARNING], messages


@pytest.mark.unit
async def test_no_server_within_the_deadline_says_what_to_do(unused_tcp_port: int) -> None:
    with pytest.raises(NatsUnavailable, match=r"within 0\.5s .*yardstick stack up"):
        await connect_nats(f"nats://127.0.0.1:{unused_tcp_port}", name="test", deadline_s=0.5)
