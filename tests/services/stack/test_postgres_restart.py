"""PostgreSQL killed (SIGKILL) and restarted in the middle of an experiment, against a real stack on
its own servers: the coordinator's /healthz says so meanwhile (503), every service reconnects by
itself, and the experiment completes with every item exactly once."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from pathlib import Path

import httpx
import psutil
import pytest

from services.stack import launcher
from services.stack.state import StackState
from tests.services.stack.fault_helpers import item_outcomes, own_stack_env, stack_up, until

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300), pytest.mark.xdist_group("stack-faults")]

ITEMS = 40


def test_postgres_restart_mid_experiment(server_dir: Path) -> None:
    state_dir = server_dir / "stack"
    env = own_stack_env(state_dir)
    try:
        stack_up(env)
        state = StackState.load(state_dir)
        assert state is not None and state.postgres_data
        api = httpx.Client(base_url=state.api_url or "", headers={"Authorization": f"Bearer {state.api_key}"})
        items = [{"id": f"p-{i}", "input": {"customer_utterance": "one hash brown"}} for i in range(ITEMS)]
        api.post(
            "/datasets/pg/items", json={"items": items, "create": {"kind": "drive_thru"}}
        ).raise_for_status()
        slow_agent = {"kind": "agent", "model": {"offline": {"simulated_latency_ms": 150}}}
        body = {"name": "through", "dataset": "pg", "concurrency": 4, "target": slow_agent}
        experiment_id = api.post("/experiments", json=body).json()["id"]
        until(
            lambda: api.get(f"/experiments/{experiment_id}").json()["progress"]["done"] >= 5,
            what="a few done",
        )

        data = Path(state.postgres_data)
        postmaster = psutil.Process(int((data / "postmaster.pid").read_text().split()[0]))
        victims = [postmaster, *postmaster.children(recursive=True)]
        for proc in victims:
            proc.kill()
        psutil.wait_procs(victims, timeout=10)
        health = httpx.get(f"{state.api_url}/healthz", timeout=10)
        assert health.status_code == 503 and "PostgreSQL" in health.json()["postgres"]

        restart = (
            "from pathlib import Path; from services.stack.servers import start_postgres; "
            f"start_postgres(Path({str(data)!r}), keep_running=True)"
        )
        subprocess.run([sys.executable, "-c", restart], env=env, check=True, timeout=60)
        until(lambda: httpx.get(f"{state.api_url}/healthz", timeout=10).status_code == 200, what="healthy")
        until(
            lambda: api.get(f"/experiments/{experiment_id}").json()["status"] == "completed",
            what="the experiment completed after the restart",
        )
        outcomes = item_outcomes(state.database_url, experiment_id)
        assert outcomes == sorted((f"p-{i}", "ok", 1) for i in range(ITEMS))
    finally:
        launcher.down(state_dir)
        _stop_restarted_postgres(state_dir / "pg")


def _stop_restarted_postgres(data: Path) -> None:
    """The restarted server is not in the stack's state (the launcher did not start it): stop it here."""
    pid_file = data / "postmaster.pid"
    if pid_file.exists():
        with contextlib.suppress(psutil.Error, ValueError, IndexError):
            proc = psutil.Process(int(pid_file.read_text().split()[0]))
            proc.terminate()
            proc.wait(20)
