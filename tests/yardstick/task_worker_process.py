"""``yardstick worker MODULE:FUNCTION`` as a real subprocess, its JSON log lines followed."""

from __future__ import annotations

import sys
from pathlib import Path

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
