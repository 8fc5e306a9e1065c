"""Chat turns survive a NATS outage and the agent's death during it: kept in Postgres, published
exactly once when NATS is back (real nats-server, stopped and restarted on the same store)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import nats
import psutil
import pytest
from faststream.nats import NatsBroker
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.agent.traffic import JetStreamTrafficPublisher
from services.agent.traffic_outbox import OutboxTrafficPublisher
from services.stack.servers import free_port, start_nats
from shared.contracts.agent_messages import TrafficTurn
from shared.contracts.topology import Topology
from shared.db.models import TrafficOutbox
from shared.messaging import ConnectionHealth
from shared.messaging.faststream_broker import new_broker, start_serving
from shared.messaging.streams import declare_at

pytestmark = [pytest.mark.integration, pytest.mark.timeout(60)]


def turn(index: int) -> TrafficTurn:
    return TrafficTurn(
        conversation_id="c1",
        turn_index=index,
        utterance="a hash brown",
        response="Added.",
        model="offline:ask",
        prompt_version="builtin",
        latency_ms=10.0,
        timestamp=datetime.now(UTC),
    )


async def _until(check: object, timeout_s: float = 20.0) -> None:
    async with asyncio.timeout(timeout_s):
        while not check():  # type: ignore[operator]
            await asyncio.sleep(0.02)


async def _agent(
    url: str, topology: Topology, sessions: async_sessionmaker[AsyncSession]
) -> tuple[NatsBroker, ConnectionHealth, OutboxTrafficPublisher]:
    health = ConnectionHealth()
    broker = new_broker(url, "test.agent.nats", health, "agent", reconnect_wait_s=0.05)
    await start_serving(broker, health)
    return (
        broker,
        health,
        OutboxTrafficPublisher(JetStreamTrafficPublisher(broker, topology), sessions, health, 1.0),
    )


async def _stream_msg_ids(url: str, topology: Topology) -> list[str]:
    nc = await nats.connect(url)
    try:
        js = nc.jetstream()
        info = await js.stream_info(topology.traffic_stream)
        ids = []
        for seq in range(info.state.first_seq, info.state.last_seq + 1):
            msg = await js.get_msg(topology.traffic_stream, seq)
            ids.append((msg.headers or {}).get("Nats-Msg-Id", ""))
        return ids
    finally:
        await nc.close()


async def _outbox(sessions: async_sessionmaker[AsyncSession]) -> int:
    async with sessions() as session:
        return int((await session.execute(select(func.count()).select_from(TrafficOutbox))).scalar_one())


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[tuple[str, int, Path]]:
    port = free_port()
    proc = start_nats(port, tmp_path / "store", tmp_path / "nats.log")
    yield f"nats://127.0.0.1:{port}", port, tmp_path
    proc.terminate()


async def test_turns_outlive_an_outage_and_the_agents_death(
    server: tuple[str, int, Path], topology: Topology, session_factory: async_sessionmaker[AsyncSession]
) -> None:
    url, port, root = server
    await declare_at(url, topology)
    broker, health, publisher = await _agent(url, topology, session_factory)
    await publisher.publish(turn(0))  # NATS up: published inline
    assert await _stream_msg_ids(url, topology) == ["default:c1:0"]

    for proc in psutil.process_iter(["name", "cmdline"]):  # the outage
        if proc.info["name"] == "nats-server" and str(port) in " ".join(proc.info["cmdline"] or []):
            proc.terminate()
            proc.wait(10)
    await _until(lambda: not health.connected)
    await publisher.publish(turn(1))
    await publisher.publish(turn(2))
    assert await _outbox(session_factory) == 2  # durable before the reply

    first_connection = broker.connection
    with contextlib.suppress(Exception):  # the agent dies during the outage (closing cannot drain)
        await broker.stop()
    restarted = start_nats(port, root / "store", root / "nats-again.log")
    successor_broker, _, successor = await _agent(url, topology, session_factory)
    try:
        assert await successor.drain_once() == 2
        assert await _outbox(session_factory) == 0
        async with session_factory() as session:  # a crash between PubAck and delete: drained again
            session.add(
                TrafficOutbox(msg_id="default:c1:1", turn=turn(1).model_dump(mode="json"), attempts=1)
            )
            await session.commit()
        assert await successor.drain_once() == 1
        assert await _stream_msg_ids(url, topology) == [
            "default:c1:0",
            "default:c1:1",
            "default:c1:2",
        ]  # each once
    finally:
        # else they reconnect to the dead port for the rest of the session
        await successor_broker.stop()
        if not first_connection.is_closed:
            await first_connection.close()
        restarted.terminate()
