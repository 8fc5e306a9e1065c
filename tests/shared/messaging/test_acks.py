"""Confirmed ACK/TERM against the real nats-server: applied by the time ``settle`` returns."""

from __future__ import annotations

import pytest
from nats.aio.client import Client as NatsClient

from shared.messaging.acks import settle
from yardstick.api.topology import EVAL_WORKERS_CONSUMER, Topology

pytestmark = [pytest.mark.integration, pytest.mark.timeout(30)]


@pytest.mark.parametrize("kind", ["ack", "term"])
async def test_settle_is_applied_before_it_returns(
    nats_client: NatsClient, topology: Topology, kind: str
) -> None:
    js = nats_client.jetstream()
    await js.publish(topology.eval_task, b"x", headers={"Nats-Msg-Id": f"settle-{kind}"})
    sub = await js.pull_subscribe(topology.eval_task, durable=EVAL_WORKERS_CONSUMER)
    [msg] = await sub.fetch(1, timeout=5)
    before = await js.consumer_info(topology.eval_tasks_stream, EVAL_WORKERS_CONSUMER)
    assert before.num_ack_pending == 1

    assert await settle(msg, "ack" if kind == "ack" else "term") is True

    after = await js.consumer_info(topology.eval_tasks_stream, EVAL_WORKERS_CONSUMER)
    assert after.num_ack_pending == 0 and after.num_pending == 0 and after.num_redelivered == 0


async def test_settle_refuses_a_message_that_did_not_come_from_jetstream(
    nats_client: NatsClient, topology: Topology
) -> None:
    sub = await nats_client.subscribe(topology.eval_task + ".plain")
    await nats_client.publish(topology.eval_task + ".plain", b"core")
    msg = await sub.next_msg(timeout=5)
    with pytest.raises(ValueError, match="without a reply subject"):
        await settle(msg, "ack")
