from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
from nats.aio.client import Client as NatsClient

from services.evaluator.settings import WorkerSettings
from services.evaluator.worker import EvalWorker
from yardstick.api.topology import Topology

StartWorker = Callable[..., Awaitable[EvalWorker]]


@pytest.fixture
async def start_worker(
    nats_url: str, topology: Topology, nats_client: NatsClient
) -> AsyncIterator[StartWorker]:
    """Start in-process workers on this test's namespace; all are stopped (drained) afterwards."""
    workers: list[EvalWorker] = []

    async def start(**overrides: Any) -> EvalWorker:
        settings = WorkerSettings(
            nats_url=nats_url,
            nats_namespace=topology.namespace,
            worker_id=f"inproc-{len(workers)}",
            **overrides,
        )
        worker = EvalWorker(settings)
        await worker.start()
        workers.append(worker)
        return worker

    yield start
    for worker in workers:
        await worker.stop()
