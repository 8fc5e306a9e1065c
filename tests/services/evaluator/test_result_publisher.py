"""The result publisher against a real JetStream: results scored together share a message, a lone
one goes at once, every caller gets its PubAck only once the stream stored its result, and a
failure reaches every caller waiting on that message."""

from __future__ import annotations

import asyncio

import pytest
from nats.aio.client import Client as NatsClient

from services.evaluator.errors import ResultPublishError
from services.evaluator.result_publisher import ResultPublisher
from tests.services.evaluator.fakes import ResultReader
from yardstick.api.eval_messages import EvalResult
from yardstick.api.topology import Topology

pytestmark = pytest.mark.integration


def _result(item: str, output: str = "") -> EvalResult:
    return EvalResult(experiment_id="exp", item_id=item, status="ok", output={"text": output})


async def test_results_scored_together_share_a_message_and_all_arrive(
    nats_client: NatsClient, topology: Topology
) -> None:
    js = nats_client.jetstream()
    publisher = ResultPublisher(js, topology.eval_result, topology.eval_results_stream, linger_s=0.2)
    await publisher.publish(_result("first"))  # idle: sent alone, at once
    assert publisher.messages_sent == 1
    acks = await asyncio.gather(*(publisher.publish(_result(f"item-{i}")) for i in range(10)))
    assert all(not ack.duplicate for ack in acks)
    # the ten came while the publisher was busy (within linger_s of the first): one message
    assert publisher.messages_sent == 2
    assert len({ack.seq for ack in acks}) == 1
    info = await js.stream_info(topology.eval_results_stream)
    assert info.state.messages == 2
    results = await ResultReader(js, topology).next_results(11)
    assert sorted(r.item_id for r in results) == sorted(["first", *(f"item-{i}" for i in range(10))])


async def test_a_batch_is_bounded_by_count_and_bytes(nats_client: NatsClient, topology: Topology) -> None:
    js = nats_client.jetstream()
    publisher = ResultPublisher(
        js, topology.eval_result, topology.eval_results_stream, linger_s=0.2, max_results=3, max_bytes=600
    )
    big = "x" * 700  # larger than max_bytes: goes alone, as a single result
    await asyncio.gather(
        *(publisher.publish(_result(f"small-{i}")) for i in range(7)), publisher.publish(_result("big", big))
    )
    results = await ResultReader(js, topology).next_results(8)
    assert sorted(r.item_id for r in results) == sorted(["big", *(f"small-{i}" for i in range(7))])
    assert publisher.messages_sent >= 1 + 3  # 7 small ones at most 3 to a message, the big one alone


async def test_a_failed_publish_raises_in_every_waiting_caller(
    nats_client: NatsClient, topology: Topology
) -> None:
    js = nats_client.jetstream()
    publisher = ResultPublisher(js, "no.stream.here", topology.eval_results_stream, budget_s=0.3)
    outcomes = await asyncio.gather(
        *(publisher.publish(_result(f"item-{i}")) for i in range(3)), return_exceptions=True
    )
    assert all(isinstance(o, ResultPublishError) for o in outcomes), outcomes
    assert "is the stream declared?" in str(outcomes[0])
