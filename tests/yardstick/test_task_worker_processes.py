"""Task workers as their own processes (`yardstick worker`), as users run them: one serves an
experiment; of two replicas, one is killed (SIGKILL) mid-run and the other finishes every item,
each recorded exactly once; SIGTERM drains."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from nats.aio.client import Client as NatsClient

from services.evaluator.worker import EvalWorker
from tests.services.stack.fault_helpers import item_outcomes
from tests.yardstick.conftest import qa_items
from tests.yardstick.task_worker_process import TaskWorkerProcess
from yardstick import Client
from yardstick.api.topology import Topology

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]

SpawnTaskWorker = Callable[..., TaskWorkerProcess]


@pytest.fixture
async def spawn(nats_url: str, topology: Topology, nats_client: NatsClient) -> AsyncIterator[SpawnTaskWorker]:
    started: list[TaskWorkerProcess] = []

    def make(worker_id: str, *references: str, **env: str) -> TaskWorkerProcess:
        proc = TaskWorkerProcess(nats_url, topology, worker_id, *references, **env)
        started.append(proc)
        return proc

    yield make
    for proc in started:
        await proc.kill()


async def test_a_task_worker_process_serves_an_experiment_and_drains_on_sigterm(
    client: Client, eval_workers: list[EvalWorker], spawn: SpawnTaskWorker
) -> None:
    proc = await spawn("solo", "tests.yardstick.sample_tasks:shout").start()
    ready = await proc.wait_for_log("task worker ready")
    assert ready["tasks"] == ["shout"]
    await asyncio.to_thread(client.push_dataset, "qa", qa_items())

    done = await asyncio.to_thread(
        lambda: client.run_experiment(
            "from-a-process",
            dataset="qa",
            target={"kind": "python", "name": "shout"},
            evaluators=["exact_match"],
            timeout_s=60,
        )
    )
    assert done.status == "completed" and done.progress.errors == 0
    assert done.aggregates is not None and done.aggregates.metrics["exact_match"].mean == 1.0

    proc.signal(signal.SIGTERM)
    assert (await proc.wait_for_log("task worker stopped"))["served"] == 4
    assert await proc.wait_exit() == 0


async def test_with_one_of_two_replicas_killed_mid_run_the_other_finishes_every_item_exactly_once(
    client: Client, eval_workers: list[EvalWorker], spawn: SpawnTaskWorker, database_url: str
) -> None:
    replicas = [
        spawn(name, "tests.yardstick.sample_tasks:slow_shout", SLOW_TASK_S="0.4", TASK_CONCURRENCY="2")
        for name in ("replica-a", "replica-b")
    ]
    await asyncio.gather(*(r.start() for r in replicas))
    await asyncio.gather(*(r.wait_for_log("task worker ready") for r in replicas))
    items: list[dict[str, Any]] = [
        {"id": f"q{i:02d}", "input": {"question": f"city {i}"}, "expected_output": {"output": f"CITY {i}"}}
        for i in range(16)
    ]
    await asyncio.to_thread(client.push_dataset, "cities", items)

    accepted = await asyncio.to_thread(
        lambda: client.start_experiment(
            "kill-one",
            dataset="cities",
            target={"kind": "python", "name": "slow-shout"},
            evaluators=["exact_match"],
            concurrency=4,
            timeout_s=3.0,  # a call the killed replica never answers is retried after this
        )
    )
    victim, survivor = replicas
    started = await victim.wait_for_log("slow task started")  # a call is running in the victim now
    victim.signal(signal.SIGKILL)
    assert await victim.wait_exit() == -signal.SIGKILL

    done = await asyncio.to_thread(lambda: client.wait(accepted.id, timeout_s=90))
    assert done.status == "completed" and done.progress.errors == 0
    assert done.aggregates is not None and done.aggregates.metrics["exact_match"].mean == 1.0
    assert item_outcomes(database_url, accepted.id) == [(item["id"], "ok", 1) for item in items]

    by_item = {i.item_id: i for i in await asyncio.to_thread(client.items, accepted.id)}
    interrupted = next(i for i in items if i["input"]["question"] == started["question"])
    assert by_item[interrupted["id"]].attempts >= 2  # its first call died with the victim
    finished_by_victim = {
        line["question"] for line in victim.lines if line.get("msg") == "slow task finished"
    }
    finished_by_survivor = {
        line["question"] for line in survivor.lines if line.get("msg") == "slow task finished"
    }
    assert finished_by_victim | finished_by_survivor >= {i["input"]["question"] for i in items}
    assert started["question"] in finished_by_survivor
