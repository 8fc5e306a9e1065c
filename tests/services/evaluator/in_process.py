"""Eval workers in the test's own process, on the test's NATS namespace (test support)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from services.evaluator.settings import WorkerSettings
from services.evaluator.worker import EvalWorker
from yardstick.api.topology import Topology


@asynccontextmanager
async def running_workers(
    nats_url: str, topology: Topology, *, count: int = 2, id_prefix: str = "w", **settings: Any
) -> AsyncIterator[list[EvalWorker]]:
    """``count`` started eval workers (ids ``<id_prefix>0``, …; 8 task slots unless ``settings``
    say otherwise), stopped on exit."""
    started: list[EvalWorker] = []
    try:
        for index in range(count):
            worker = EvalWorker(
                WorkerSettings(
                    nats_url=nats_url,
                    nats_namespace=topology.namespace,
                    worker_id=f"{id_prefix}{index}",
                    **{"eval_concurrency": 8, **settings},
                )
            )
            await worker.start()
            started.append(worker)
        yield started
    finally:
        for worker in started:
            await worker.stop()
