"""``yardstick worker MODULE:FUNCTION`` as a real subprocess, its JSON log lines followed."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from shared.contracts.topology import Topology
from tests.services.evaluator.worker_process import REPO_ROOT, WorkerProcess

YARDSTICK = str(Path(sys.executable).parent / "yardstick")


class TaskWorkerProcess(WorkerProcess):
    """A task worker process; ``wait_for_log("task worker ready")`` once it serves."""

    def __init__(
        self, nats_url: str, topology: Topology, worker_id: str, *references: str, **env: str
    ) -> None:
        super().__init__(nats_url, topology, worker_id, **env)
        self.references = references

    async def start(self) -> TaskWorkerProcess:
        self._proc = await asyncio.create_subprocess_exec(
            YARDSTICK,
            "worker",
            *self.references,
            cwd=REPO_ROOT,
            env=self.env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        self._reader = asyncio.create_task(self._read_logs())
        return self

    @property
    def pid(self) -> int:
        assert self._proc is not None
        return self._proc.pid
