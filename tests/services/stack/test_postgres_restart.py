"""PostgreSQL killed (SIGKILL) and restarted in the middle of an experiment, against a real stack on
its own servers: the coordinator's /healthz says so meanwhile (503), every service reconnects by
itself, and the experiment completes with every item exactly once."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import psutil
import psycopg
import pytest

from services.stack import launcher
from services.stack.servers import free_port
from services.stack.state import StackState
from shared.db.session import plain_url
from tests.services.stack.test_launcher import _free_port_base

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

YARDSTICK = str(Path(sys.executable).parent / "yardstick")
ITEMS = 40


def _until(check: object, timeout_s: float = 120.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            if check():  # type: ignore[operator]
                return
        except (httpx.HTTPError, ValueError, KeyError):
            pass  # the API may fail while its database is away
        if time.monotonic() > deadline:
            raise TimeoutError(f"never happened: {what}")
        time.sleep(0.1)


def test_postgres_restart_mid_experiment(tmp_path: Path) -> None:
    state_dir = tmp_path / "stack"
    env = {k: v for k, v in os.environ.items() if k not in ("NATS_URL", "DATABASE_URL")}
    env |= {
        "YARDSTICK_HOME": str(state_dir),
        "YARDSTICK_PORT_BASE": str(_free_port_base()),
        "YARDSTICK_NATS_PORT": str(free_port()),
        "YARDSTICK_EVAL_WORKERS": "1",
    }
    try:
        done = subprocess.run(
            [YARDSTICK, "stack", "up"], env=env, capture_output=True, text=True, timeout=240
        )
        assert done.returncode == 0, done.stdout + done.stderr
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
        _until(
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
        _until(lambda: httpx.get(f"{state.api_url}/healthz", timeout=10).status_code == 200, what="healthy")
        _until(
            lambda: api.get(f"/experiments/{experiment_id}").json()["status"] == "completed",
            what="the experiment completed after the restart",
        )
        with psycopg.connect(plain_url(state.database_url)) as conn:
            rows = conn.execute(
                "SELECT item_id, status, count(*) FROM experiment_items WHERE experiment_id = %s "
                "GROUP BY item_id, status",
                (experiment_id,),
            ).fetchall()
        assert sorted(rows) == sorted((f"p-{i}", "ok", 1) for i in range(ITEMS))
    finally:
        launcher.down(state_dir)
