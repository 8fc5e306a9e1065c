"""decode_or_terminate against the real nats-server: a contract decodes, anything else is terminated
once (never redelivered) and logged with its subject."""

from __future__ import annotations

import logging

import pytest
from nats.aio.client import Client as NatsClient

from shared.messaging import decode_or_terminate
from yardstick.api.eval_messages import EvalTask
from yardstick.api.topology import EVAL_WORKERS_CONSUMER, Topology

pytestmark = [pytest.mark.integration, pytest.mark.timeout(30)]


async def test_garbage_is_terminated_and_a_task_decodes(
    nats_client: NatsClient, topology: Topology, caplog: pytest.LogCaptureFixture
) -> None:
    js = nats_client.jetstream()
    task = EvalTask(experiment_id="e", item_id="i", input={"q": 1}, target={"kind": "search"})  # type: ignore[arg-type]
    await js.publish(topology.eval_task, b"{not json", headers={"Nats-Msg-Id": "garbage"})
    await js.publish(topology.eval_task, task.model_dump_json().encode(), headers={"Nats-Msg-Id": "task"})
    sub = await js.pull_subscribe(topology.eval_task, durable=EVAL_WORKERS_CONSUMER)
    garbage, good = await sub.fetch(2, timeout=5)

    with caplog.at_level(logging.ERROR, logger="shared.messaging.decoding"):
        assert await decode_or_terminate(garbage, EvalTask) is None
    assert [r.getMessage() for r in caplog.records] == [
        "terminating a message that is not a EvalTask: it can never succeed"
    ]
    decoded = await decode_or_terminate(good, EvalTask)
    assert decoded is not None and decoded.task_id == task.task_id
    await good.ack_sync()
    info = await js.consumer_info(topology.eval_tasks_stream, EVAL_WORKERS_CONSUMER)
    assert info.num_ack_pending == 0 and info.num_redelivered == 0 and info.num_pending == 0
