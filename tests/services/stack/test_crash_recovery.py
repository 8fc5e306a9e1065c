"""`yardstick stack up` after a crash: every process of the stack killed with SIGKILL (PostgreSQL's
pid file left behind, nats-server dead), and the next `up` recovers instead of failing. Each `up`
is its own `yardstick` process, as on a command line."""

from __future__ import annotations

from pathlib import Path

import psutil
import pytest

from services.stack import launcher
from services.stack.state import StackState
from services.stack.status import stack_status
from tests.services.stack.fault_helpers import own_stack_env, stack_up

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300), pytest.mark.xdist_group("stack-faults")]


def test_up_after_everything_was_killed(server_dir: Path) -> None:
    state_dir = server_dir / "stack"
    env = own_stack_env(state_dir)
    try:
        stack_up(env)
        state = StackState.load(state_dir)
        assert state is not None and state.postgres_data
        victims = [psutil.Process(p.pid) for p in state.processes]
        victims += [child for v in victims for child in v.children(recursive=True)]
        for proc in victims:
            proc.kill()
        psutil.wait_procs(victims, timeout=10)
        assert (Path(state.postgres_data) / "postmaster.pid").exists()  # left behind by the crash

        stack_up(env)
        again = StackState.load(state_dir)
        assert again is not None
        assert [c.name for c in stack_status(again) if not c.healthy] == []
        assert {p.name for p in again.processes} == {p.name for p in state.processes}
    finally:
        launcher.down(state_dir)
