"""A task worker serving the team's ``@yardstick.task`` function beside the gate, in a thread of
the gate's own process, for exactly as long as the run needs it.

The worker reaches NATS as ``yardstick worker`` does (:meth:`TaskWorkerSettings.discover`):
``NATS_URL`` / ``NATS_NAMESPACE`` when set (a server the runner can reach), else those of the local
stack started in the job. It is subscribed before the experiment starts (the coordinator refuses a
python target that no worker serves) and drained after the run ends (calls still running finish).
"""

from __future__ import annotations

import asyncio
import threading
from types import TracebackType

from yardstick.task_worker import TaskWorker
from yardstick.tasks import TaskFunction, load_tasks
from yardstick.worker_settings import TaskWorkerSettings

START_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 120.0


class ServedTask:
    """``with ServedTask("pkg.module:function") as task:`` serves it; ``task.target`` is its target."""

    def __init__(self, reference: str) -> None:
        tasks = load_tasks(reference)
        if len(tasks) != 1:
            names = ", ".join(sorted(t.name for t in tasks))
            raise ValueError(f"task {reference!r} names {len(tasks)} tasks ({names}): give module:function")
        self.task: TaskFunction = tasks[0]
        self.settings = TaskWorkerSettings.discover()
        self._worker = TaskWorker(tasks, self.settings)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="yardstick-ci-task", daemon=True)

    def __enter__(self) -> ServedTask:
        self._thread.start()
        try:
            asyncio.run_coroutine_threadsafe(self._worker.start(), self._loop).result(START_TIMEOUT_S)
        except BaseException:
            self._shut_loop()
            raise
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        try:
            asyncio.run_coroutine_threadsafe(self._worker.stop(), self._loop).result(STOP_TIMEOUT_S)
        finally:
            self._shut_loop()

    def _shut_loop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(STOP_TIMEOUT_S)
        self._loop.close()
