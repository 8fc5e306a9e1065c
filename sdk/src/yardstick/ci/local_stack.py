"""Mode ``local``: a throwaway Yardstick stack inside the CI job, started before the run and stopped
after it, whatever happened in between.

It is ``yardstick stack up`` / ``yardstick stack down`` (NATS, PostgreSQL and every service on the
runner, state in ``$YARDSTICK_HOME``, default ``.yardstick``); the client and the task worker find
it through that state file. Nothing survives the job: the baseline of a pull request comes from a
file the default branch's job left behind (``--baseline-file``, kept by ``actions/cache``).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType


class StackStartError(RuntimeError):
    """``yardstick stack up`` failed (its output says why)."""


def yardstick_command() -> list[str]:
    """The ``yardstick`` CLI installed beside this Python (else the one on ``PATH``)."""
    beside = Path(sys.executable).with_name("yardstick")
    if beside.exists():
        return [str(beside)]
    found = shutil.which("yardstick")
    if found is None:
        raise StackStartError("mode local needs the `yardstick` CLI (pip install the full yardstick package)")
    return [found]


class LocalStack:
    """``with LocalStack():`` runs ``stack up`` on entry and ``stack down`` on exit."""

    def __init__(self, command: Sequence[str] | None = None) -> None:
        self._command = list(command) if command is not None else yardstick_command()

    def __enter__(self) -> LocalStack:
        print("starting a local stack: yardstick stack up", file=sys.stderr, flush=True)
        if subprocess.run([*self._command, "stack", "up"], check=False).returncode != 0:
            subprocess.run([*self._command, "stack", "down"], check=False)
            raise StackStartError("`yardstick stack up` failed (its output is above)")
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        subprocess.run([*self._command, "stack", "down"], check=False)
