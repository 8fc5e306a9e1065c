"""`yardstick stack up` after a crash: every process of the stack killed with SIGKILL (PostgreSQL's
pid file left behind, nats-server dead), and the next `up` recovers instead of failing. Each `up`
is its own `yardstick` process, as on a command line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from services.stack import launcher
from services.stack.servers import free_port
from services.stack.state import StackState
from services.stack.status import stack_status
from tests.services.stack.test_launcher import _free_port_base

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

YARDSTICK = str(Path(sys.executable).parent / "yardstick")


def _up(env: dict[str, str]) -> None:
    done = subprocess.run([YARDSTICK, "stack", "up"], env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout + done.stderr


def test_up_after_everything_was_killed(tmp_path: Path) -> None:
    state_dir = tmp_path / "stack"
    env = {k: v for k, v in os.environ.items() if k not in ("NATS_URL", "DATABASE_URL")}  # own servers
    env |= {
        "YARDSTICK_HOME": str(state_dir),
        "YARDSTICK_PORT_BASE": str(_free_port_base()),
        "YARDSTICK_NATS_PORT": str(free_port()),
        "YARDSTICK_EVAL_WORKERS": "1",
    }
    try:
        _up(env)
        state = StackState.load(state_dir)
        assert state is not None and state.postgres_data
        victims = [psutil.Process(p.pid) for p in state.processes]
        victims += [child for v in victims for child in v.children(recursive=True)]
        for proc in victims:
            proc.kill()
        psutil.wait_procs(victims, timeout=10)
        assert (Path(state.postgres_data) / "postmaster.pid").exists()  # left behind by the crash

        _up(env)
        again = StackState.load(state_dir)
        assert again is not None
        assert [c.name for c in stack_status(again) if not c.healthy] == []
        assert {p.name for p in again.processes} == {p.name for p in state.processes}
    finally:
        launcher.down(state_dir)
