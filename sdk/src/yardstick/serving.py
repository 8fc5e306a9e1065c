"""Run a task worker in the foreground until SIGTERM or SIGINT, then drain (``yardstick worker``)."""

from __future__ import annotations

import asyncio
import signal

from yardstick.task_worker import TaskWorker
from yardstick.tasks import TaskFunction
from yardstick.worker_settings import TaskWorkerSettings


async def serve_until_signalled(worker: TaskWorker) -> None:
    """Start ``worker``, wait for SIGTERM/SIGINT, drain it."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    try:
        await worker.start()
        await stop.wait()
    finally:
        await worker.stop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(sig)


def serve(*tasks: TaskFunction, settings: TaskWorkerSettings | None = None) -> None:
    """Serve ``tasks`` in this process until it is signalled (blocks). Start more processes to scale.

    Settings come from the environment (``NATS_URL``, ``NATS_NAMESPACE``, ``TASK_CONCURRENCY`` …) or,
    without ``NATS_URL``, from the local stack started with ``yardstick stack up``."""
    asyncio.run(serve_until_signalled(TaskWorker(list(tasks), settings)))
