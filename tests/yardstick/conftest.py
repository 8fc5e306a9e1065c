"""The SDK's tests: a live coordinator over HTTP (``api``), in-process eval workers, and task workers
in this process or in their own."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

import pytest
from nats.aio.client import Client as NatsClient

from services.evaluator.worker import EvalWorker
from tests.services.evaluator.in_process import running_workers
from tests.services.live_api import Api, api
from yardstick import Client, TaskFunction, TaskWorker, TaskWorkerSettings
from yardstick.api.topology import Topology

__all__ = ["Api", "api"]

StartTaskWorker = Callable[..., Awaitable[TaskWorker]]


@pytest.fixture
async def eval_workers(
    nats_url: str, topology: Topology, nats_client: NatsClient
) -> AsyncIterator[list[EvalWorker]]:
    """Two in-process eval workers that retry quickly."""
    async with running_workers(
        nats_url, topology, id_prefix="eval-", eval_backoff_base_s=0.2, eval_backoff_max_s=1.0
    ) as started:
        yield started


@pytest.fixture
async def start_task_worker(nats_url: str, topology: Topology) -> AsyncIterator[StartTaskWorker]:
    """Serve task functions in this process, on this test's namespace; drained afterwards."""
    workers: list[TaskWorker] = []

    async def start(*tasks: TaskFunction, **overrides: Any) -> TaskWorker:
        settings = TaskWorkerSettings(
            nats_url=nats_url,
            nats_namespace=topology.namespace,
            worker_id=f"task-{len(workers)}",
            **overrides,
        )
        worker = TaskWorker(list(tasks), settings)
        await worker.start()
        workers.append(worker)
        return worker

    yield start
    for worker in workers:
        await worker.stop()


@pytest.fixture
def client(api: Api) -> Iterator[Client]:
    with Client(api.url, api.key) as sdk:
        yield sdk


QUESTIONS = ["paris", "Rome", "oslo", "Lima"]


def qa_items() -> list[dict[str, Any]]:
    """Four questions whose right answer is the question in capitals."""
    return [
        {"id": f"q{i}", "input": {"question": q}, "expected_output": {"output": q.upper()}}
        for i, q in enumerate(QUESTIONS)
    ]
