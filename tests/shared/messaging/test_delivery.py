"""Pins the JetStream delivery behaviour Yardstick relies on, against the real nats-server."""

from __future__ import annotations

import asyncio

import pytest
from faststream.nats import NatsBroker
from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg

from yardstick.api.topology import EVAL_WORKERS_CONSUMER, Topology

pytestmark = [pytest.mark.integration, pytest.mark.timeout(30)]


async def test_two_pullers_share_one_durable_and_every_message_is_processed(
    nats_client: NatsClient, topology: Topology
) -> None:
    js = nats_client.jetstream()
    total = 40
    for i in range(total):
        await js.publish(topology.eval_task, str(i).encode(), headers={"Nats-Msg-Id": f"m{i}"})

    seen: dict[str, list[int]] = {"a": [], "b": []}

    async def worker(name: str) -> None:
        sub = await js.pull_subscribe(topology.eval_task, durable=EVAL_WORKERS_CONSUMER)
        while sum(len(v) for v in seen.values()) < total:
            try:
                msgs = await sub.fetch(batch=3, timeout=0.5)
            except TimeoutError:
                continue
            for msg in msgs:
                seen[name].append(int(msg.data))
                await msg.ack()
                await asyncio.sleep(0)  # let the other worker fetch too

    await asyncio.wait_for(asyncio.gather(worker("a"), worker("b")), timeout=20)
    assert sorted(seen["a"] + seen["b"]) == list(range(total))
    assert seen["a"] and seen["b"], f"one worker got nothing: {seen}"


async def test_nacked_message_is_redelivered_with_its_delivery_count(
    nats_client: NatsClient, topology: Topology
) -> None:
    js = nats_client.jetstream()
    await js.publish(topology.eval_task, b"flaky", headers={"Nats-Msg-Id": "flaky-1"})
    sub = await js.pull_subscribe(topology.eval_task, durable=EVAL_WORKERS_CONSUMER)

    first: Msg = (await sub.fetch(1, timeout=5))[0]
    assert first.metadata.num_delivered == 1
    await first.nak(delay=0.1)

    second: Msg = (await sub.fetch(1, timeout=5))[0]
    assert second.data == b"flaky"
    assert second.metadata.num_delivered == 2
    await second.ack()


async def test_repeated_publish_with_same_msg_id_is_dropped_as_duplicate(
    nats_client: NatsClient, nats_url: str, topology: Topology
) -> None:
    broker = NatsBroker(nats_url)
    await broker.start()
    try:
        stream = topology.eval_results_stream
        headers = {"Nats-Msg-Id": "exp:item-1:0"}
        first = await broker.publish(b"result", topology.eval_result, stream=stream, headers=headers)
        again = await broker.publish(b"result", topology.eval_result, stream=stream, headers=headers)
        assert first is not None and again is not None
        assert not first.duplicate
        assert again.duplicate
        info = await nats_client.jetstream().stream_info(stream)
        assert info.state.messages == 1
    finally:
        await broker.stop()
