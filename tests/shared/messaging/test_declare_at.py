"""Declaring the streams over a server list whose first server is down."""

from __future__ import annotations

import logging

import nats
import pytest

from services.stack.servers import free_port
from shared.messaging import streams
from yardstick.api.topology import Topology

pytestmark = pytest.mark.integration


async def test_declaring_at_a_list_whose_first_server_is_down_says_so_in_one_line(
    nats_url: str, topology: Topology, caplog: pytest.LogCaptureFixture
) -> None:
    down = f"nats://127.0.0.1:{free_port()}"  # nothing listens there
    with caplog.at_level(logging.INFO):
        await streams.declare_at(f"{down},{nats_url}", topology)
    tracebacks = [r for r in caplog.records if r.exc_info is not None]
    assert tracebacks == []  # nats-py's default error callback logs one per unreachable server
    told = [r.getMessage() for r in caplog.records if r.name == streams.__name__]
    assert any("trying the next server" in line for line in told)
    nc = await nats.connect(nats_url)
    try:
        info = await nc.jetstream().stream_info(topology.eval_tasks_stream)
        assert info.config.name == topology.eval_tasks_stream  # declared through the second server
    finally:
        await nc.close()
