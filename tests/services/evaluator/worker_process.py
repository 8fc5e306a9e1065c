"""Runs ``python -m services.evaluator.main`` as a real subprocess and follows its JSON log lines."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any, Self

from yardstick.api.topology import Topology

REPO_ROOT = Path(__file__).resolve().parents[3]


class WorkerProcess:
    def __init__(self, nats_url: str, topology: Topology, worker_id: str, **env: str) -> None:
        self.worker_id = worker_id
        self.env = {
            **os.environ,
            "NATS_URL": nats_url,
            "NATS_NAMESPACE": topology.namespace,
            "HTTP_PORT": "0",
            "WORKER_ID": worker_id,
            "LOG_LEVEL": "INFO",
            "LOG_JSON": "true",
            **env,
        }
        self.lines: list[dict[str, Any]] = []
        self._changed = asyncio.Condition()
        self._proc: asyncio.subprocess.Process | None = None
        self._reader: asyncio.Task[None] | None = None

    def command(self) -> list[str]:
        """What is started: the eval worker (subclasses run other commands the same way)."""
        return [sys.executable, "-m", "services.evaluator.main"]

    async def start(self) -> Self:
        self._proc = await asyncio.create_subprocess_exec(
            *self.command(),
            cwd=REPO_ROOT,
            env=self.env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        self._reader = asyncio.create_task(self._read_logs())
        return self

    async def _read_logs(self) -> None:
        assert self._proc is not None and self._proc.stderr is not None
        async for raw in self._proc.stderr:
            text = raw.decode(errors="replace").strip()
            try:
                line = json.loads(text)
            except ValueError:
                line = {"msg": text, "raw": True}
            async with self._changed:
                self.lines.append(line)
                self._changed.notify_all()

    async def wait_for_log(self, msg: str, within_s: float = 90.0) -> dict[str, Any]:
        def found() -> bool:
            return any(line.get("msg") == msg for line in self.lines)

        async with self._changed:
            try:
                await asyncio.wait_for(self._changed.wait_for(found), within_s)
            except TimeoutError:
                raise AssertionError(
                    f"{self.worker_id} never logged {msg!r}; log: {self.lines[-20:]}"
                ) from None
            return next(line for line in self.lines if line.get("msg") == msg)

    def signal(self, sig: signal.Signals) -> None:
        assert self._proc is not None
        self._proc.send_signal(sig)

    async def wait_exit(self, within_s: float = 20.0) -> int:
        assert self._proc is not None
        code = await asyncio.wait_for(self._proc.wait(), within_s)
        if self._reader is not None:
            await asyncio.wait_for(self._reader, 5)
        return code

    async def kill(self) -> None:
        """Stop it whatever state it is in (test cleanup)."""
        if self._proc is not None and self._proc.returncode is None:
            self._proc.kill()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._proc.wait(), 10)
        if self._reader is not None:
            self._reader.cancel()
