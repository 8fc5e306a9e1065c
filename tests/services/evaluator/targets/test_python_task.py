"""The python target against a responder on the real NATS server: what it sends, how it maps replies."""

from __future__ import annotations

import pytest
from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg

from services.evaluator.errors import TargetFailed, TargetRejected, TargetUnavailable
from services.evaluator.targets.base import CallContext
from services.evaluator.targets.python_task import PythonTaskTarget
from yardstick.api.eval_messages import EvalTask, PythonTarget
from yardstick.api.item_failure import ItemFailure
from yardstick.api.nats_interest import subscriptions_registered
from yardstick.api.task_messages import TaskInvokeReply, TaskInvokeRequest
from yardstick.api.topology import TASK_QUEUE, Topology

pytestmark = pytest.mark.integration

CTX = CallContext(worker_id="w1", task_id="e:i7:0", attempt=2)


def task(name: str) -> EvalTask:
    return EvalTask(
        experiment_id="e",
        item_id="i7",
        input={"question": "paris"},
        expected_output={"output": "PARIS"},
        target=PythonTarget(name=name),
        timeout_s=2.0,
    )


async def respond_with(nats_client: NatsClient, subject: str, reply: TaskInvokeReply) -> list[Msg]:
    seen: list[Msg] = []

    async def answer(msg: Msg) -> None:
        seen.append(msg)
        await msg.respond(reply.model_dump_json().encode())

    await nats_client.subscribe(subject, queue=TASK_QUEUE, cb=answer)
    await subscriptions_registered(nats_client)
    return seen


async def test_the_item_goes_out_and_the_output_comes_back(
    nats_client: NatsClient, topology: Topology
) -> None:
    seen = await respond_with(
        nats_client, topology.task_invoke("app"), TaskInvokeReply(ok=True, output={"output": "PARIS"})
    )
    called = await PythonTaskTarget(nats_client, topology).call(task("app"), CTX)
    assert called.output == {"output": "PARIS"}
    [msg] = seen
    request = TaskInvokeRequest.model_validate_json(msg.data)
    assert (request.item_id, request.attempt, request.input, request.timeout_s) == (
        "i7",
        2,
        {"question": "paris"},
        2.0,
    )
    assert msg.headers is not None and msg.headers["Yardstick-Task-Id"] == "e:i7:0"


async def test_a_function_that_raised_is_rejected_not_retried(
    nats_client: NatsClient, topology: Topology
) -> None:
    await respond_with(
        nats_client, topology.task_invoke("app"), TaskInvokeReply(ok=False, error="ValueError: no")
    )
    with pytest.raises(TargetRejected, match="python task 'app' failed: ValueError: no"):
        await PythonTaskTarget(nats_client, topology).call(task("app"), CTX)


async def test_the_functions_own_failure_comes_back_typed(
    nats_client: NatsClient, topology: Topology
) -> None:
    raised = ItemFailure(source="target", type="ValueError", message="no", traceback="in app")
    reply = TaskInvokeReply(ok=False, error="ValueError: no", failure=raised)
    await respond_with(nats_client, topology.task_invoke("app"), reply)
    with pytest.raises(TargetFailed, match="python task 'app' failed: ValueError: no") as info:
        await PythonTaskTarget(nats_client, topology).call(task("app"), CTX)
    assert info.value.failure == raised


async def test_no_task_worker_is_transient_and_says_how_to_start_one(
    nats_client: NatsClient, topology: Topology
) -> None:
    with pytest.raises(TargetUnavailable, match="yardstick worker MODULE:FUNCTION"):
        await PythonTaskTarget(nats_client, topology).call(task("nobody"), CTX)
