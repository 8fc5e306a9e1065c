"""The shared pull loop against the real nats-server: hand-over in order, room, give-back on stop."""

from __future__ import annotations

import asyncio

import pytest
from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg
from nats.js import JetStreamContext

from shared.messaging import ConsumerNotDeclared, PullLoop, bind_durable, settle
from yardstick.api.topology import SAMPLER_SPANS_CONSUMER, Topology

pytestmark = [pytest.mark.integration, pytest.mark.timeout(30)]


async def publish(nats_client: NatsClient, topology: Topology, count: int) -> None:
    js = nats_client.jetstream()
    for i in range(count):
        await js.publish(topology.traffic_spans, str(i).encode(), headers={"Nats-Msg-Id": f"part-{i}"})


async def bind(
    nats_client: NatsClient, topology: Topology, consumer: str = SAMPLER_SPANS_CONSUMER
) -> JetStreamContext.PullSubscription:
    sub, _ = await bind_durable(nats_client.jetstream(), topology.traffic_spans_stream, consumer)
    return sub


async def test_messages_are_handed_over_in_order_and_the_rest_given_back_on_stop(
    nats_client: NatsClient, topology: Topology
) -> None:
    await publish(nats_client, topology, 6)
    sub, _ = await bind_durable(
        nats_client.jetstream(), topology.traffic_spans_stream, SAMPLER_SPANS_CONSUMER
    )
    handled: list[int] = []
    loop: PullLoop

    async def one(msg: Msg) -> None:
        handled.append(int(msg.data))
        await settle(msg, "ack")
        if len(handled) == 2:
            loop.stop()  # the four others of the batch go back, none waits out ack_wait

    loop = PullLoop("test", batch=6, wait_s=1.0, on_message=one)
    await asyncio.wait_for(loop.run(sub), timeout=10)
    assert handled == [0, 1]

    again, _ = await bind_durable(
        nats_client.jetstream(), topology.traffic_spans_stream, SAMPLER_SPANS_CONSUMER
    )
    rest = await again.fetch(4, timeout=3)
    assert sorted(int(m.data) for m in rest) == [2, 3, 4, 5]
    assert all(m.metadata.num_delivered == 2 for m in rest)


async def test_the_loop_fetches_only_the_room_there_is(nats_client: NatsClient, topology: Topology) -> None:
    await publish(nats_client, topology, 5)
    sub, _ = await bind_durable(
        nats_client.jetstream(), topology.traffic_spans_stream, SAMPLER_SPANS_CONSUMER
    )
    room = 2
    batches: list[int] = []
    loop: PullLoop

    async def batch(msgs: list[Msg]) -> None:
        nonlocal room
        batches.append(len(msgs))
        room -= len(msgs)
        for msg in msgs:
            await settle(msg, "ack")
        if sum(batches) == 5:
            loop.stop()
        else:
            room = 2
            loop.wake()

    loop = PullLoop("test", batch=10, wait_s=1.0, on_batch=batch, room=lambda: room)
    await asyncio.wait_for(loop.run(sub), timeout=10)
    assert sum(batches) == 5 and max(batches) <= 2


async def test_an_undeclared_consumer_names_the_function_that_declares_it(
    nats_client: NatsClient, topology: Topology
) -> None:
    with pytest.raises(ConsumerNotDeclared, match=r"shared\.messaging\.streams\.declare\(\)"):
        await bind(nats_client, topology, "never-declared")


def test_a_loop_takes_exactly_one_handler() -> None:
    async def nothing(msgs: list[Msg]) -> None:
        pass

    with pytest.raises(ValueError, match="exactly one"):
        PullLoop("test", batch=1, wait_s=1.0)
    with pytest.raises(ValueError, match="exactly one"):
        PullLoop("test", batch=1, wait_s=1.0, on_batch=nothing, on_message=nothing)  # type: ignore[arg-type]
