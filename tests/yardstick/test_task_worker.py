"""Task workers in this process: sync and async functions, what a raising function records, the
liveness probe behind the 422, and the drain on stop."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from nats.aio.client import Client as NatsClient

from services.evaluator.worker import EvalWorker
from tests.yardstick.conftest import StartTaskWorker, qa_items
from tests.yardstick.sample_tasks import broken, shout, shout_async
from yardstick import ApiError, Client, task
from yardstick.api.task_messages import TaskInvokeReply, TaskInvokeRequest, TaskWorkerInfo
from yardstick.api.topology import Topology

pytestmark = [pytest.mark.integration, pytest.mark.timeout(60)]


async def test_sync_and_async_functions_answer_the_same_items(
    client: Client, eval_workers: list[EvalWorker], start_task_worker: StartTaskWorker
) -> None:
    await start_task_worker(shout, shout_async)
    await asyncio.to_thread(client.push_dataset, "qa", qa_items())

    def run(target: Any) -> dict[str, Any]:
        done = client.run_experiment(
            f"run-{target.name}",
            dataset="qa",
            target=target,
            evaluators=['exact_match:{"field": "output"}'],
            timeout_s=30,
        )
        assert done.status == "completed" and done.aggregates is not None
        assert done.aggregates.metrics["exact_match"].mean == 1.0
        return {item.item_id: item.output for item in client.items(done.id)}

    sync_outputs = await asyncio.to_thread(run, shout)
    async_outputs = await asyncio.to_thread(run, shout_async)
    assert sync_outputs["q0"] == {"output": "PARIS"}  # a str return value
    assert async_outputs["q0"] == {"output": "PARIS", "thread": "event-loop"}  # a dict, as is


async def test_a_sync_function_runs_in_a_thread_off_the_event_loop(
    nats_client: NatsClient, topology: Topology, start_task_worker: StartTaskWorker
) -> None:
    loop_thread = threading.get_ident()

    @task("where")
    def where(input: dict[str, Any]) -> bool:
        return threading.get_ident() != loop_thread

    await start_task_worker(where)
    request = TaskInvokeRequest(experiment_id="e", item_id="i", input={}, timeout_s=5)
    reply = await nats_client.request(topology.task_invoke("where"), request.model_dump_json().encode(), 5)
    assert TaskInvokeReply.model_validate_json(reply.data).output == {"output": True}


async def test_a_raising_function_is_the_items_error_and_is_not_retried(
    client: Client, eval_workers: list[EvalWorker], start_task_worker: StartTaskWorker
) -> None:
    await start_task_worker(broken)
    await asyncio.to_thread(client.push_dataset, "qa", qa_items())
    done = await asyncio.to_thread(
        lambda: client.run_experiment(
            "broken", dataset="qa", target=broken, evaluators=["exact_match"], timeout_s=30
        )
    )
    assert done.progress.errors == 4
    items = await asyncio.to_thread(client.items, done.id)
    assert {(i.status, i.attempts) for i in items} == {("error", 1)}
    assert "ValueError: cannot answer 'paris'" in str({i.item_id: i.error for i in items}["q0"])
    failure = {i.item_id: i.failure for i in items}["q0"]
    assert failure is not None and (failure.source, failure.type) == ("target", "ValueError")
    assert "in broken" in failure.traceback, "the function's own traceback, not the eval worker's"


async def test_an_experiment_on_an_unserved_python_target_is_refused_with_how_to_start_one(
    client: Client, start_task_worker: StartTaskWorker
) -> None:
    await start_task_worker(shout)  # serves "shout", not "nobody-serves-this"
    await asyncio.to_thread(client.push_dataset, "qa", qa_items())
    with pytest.raises(ApiError) as caught:
        await asyncio.to_thread(
            client.start_experiment,
            "orphan",
            dataset="qa",
            target={"kind": "python", "name": "nobody-serves-this"},
            evaluators=["exact_match"],
        )
    assert caught.value.status == 422
    assert "yardstick worker" in str(caught.value) and "nobody-serves-this" in str(caught.value)
    assert await asyncio.to_thread(client.list_experiments) == []


async def test_the_liveness_probe_is_answered_until_the_worker_stops(
    nats_client: NatsClient, topology: Topology, start_task_worker: StartTaskWorker
) -> None:
    worker = await start_task_worker(shout, task_concurrency=3)
    reply = await nats_client.request(topology.task_alive("shout"), b"", timeout=2)
    info = TaskWorkerInfo.model_validate_json(reply.data)
    assert (info.name, info.concurrency, info.worker_id) == ("shout", 3, worker.settings.worker_id)
    await worker.stop()
    with pytest.raises(Exception, match="no responders"):
        await nats_client.request(topology.task_alive("shout"), b"", timeout=2)


async def test_stop_lets_a_running_call_finish_and_reply(
    nats_client: NatsClient, topology: Topology, start_task_worker: StartTaskWorker
) -> None:
    started, release = asyncio.Event(), asyncio.Event()

    @task("held")
    async def held(input: dict[str, Any]) -> str:
        started.set()
        await release.wait()
        return "finished"

    worker = await start_task_worker(held)
    request = TaskInvokeRequest(experiment_id="e", item_id="i", input={}, timeout_s=10)
    call = asyncio.create_task(
        nats_client.request(topology.task_invoke("held"), request.model_dump_json().encode(), 10)
    )
    await asyncio.wait_for(started.wait(), 5)
    stopping = asyncio.create_task(worker.stop())
    await asyncio.sleep(0)  # let stop() begin draining before the call is released
    release.set()
    reply = TaskInvokeReply.model_validate_json((await asyncio.wait_for(call, 10)).data)
    await asyncio.wait_for(stopping, 10)
    assert reply.ok and reply.output == {"output": "finished"}
