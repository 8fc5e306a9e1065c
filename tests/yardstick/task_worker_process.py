"""``yardstick worker MODULE:FUNCTION`` as a real subprocess, its JSON log lines followed."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from tests.services.evaluator.worker_process import WorkerProcess
from yardstick.api.topology import Topology

YARDSTICK = str(Path(sys.executable).parent / "yardstick")


class TaskWorkerProcess(WorkerProcess):
    """A task worker process; ``wait_for_log("task worker ready")`` once it serves."""

    def __init__(
        self, nats_url: str, topology: Topology, worker_id: str, *references: str, **env: str
    ) -> None:
        super().__init__(nats_url, topology, worker_id, **env)
        self.references = references

    def command(self) -> list[str]:
        return [YARDSTICK, "worker", *self.references]

    async def wait_for_log_count(self, msg: str, count: int, within_s: float = 90.0) -> dict[str, Any]:
        """The ``count``-th line logged with ``msg`` (e.g. the second "task worker ready" after a reload)."""

        def found() -> list[dict[str, Any]]:
            return [line for line in self.lines if line.get("msg") == msg]

        async with self._changed:
            try:
                await asyncio.wait_for(self._changed.wait_for(lambda: len(found()) >= count), within_s)
            except TimeoutError:
                raise AssertionError(f"{self.worker_id} logged {msg!r} fewer than {count} times") from None
            return found()[count - 1]
