"""Faults on the HA stack (`yardstick stack up --ha`: three NATS nodes, R3 streams, a PostgreSQL
primary with a synchronous standby), each in the middle of an experiment:

- kill -9 of the JetStream leader of the results stream: a new leader is elected, the publishes that
  failed meanwhile are retried through the election, and the experiment completes;
- kill -9 of the PostgreSQL primary, then `stack promote`: /healthz says PostgreSQL is gone, then
  names the promoted server, and the experiment completes.

In each, every item ends ``ok`` exactly once with every score once, and no service was restarted.
The recovery times are printed. One stack serves both tests (it takes a minute to start on two
cores); the NATS test restarts the node it killed, so the PostgreSQL test has a whole cluster.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import psutil
import pytest

from services.stack import launcher
from services.stack.ha_servers import promote_standby
from services.stack.nats_cluster import start_node, stream_leader
from services.stack.state import StackState
from shared.contracts.topology import Topology
from tests.services.stack.fault_helpers import ha_stack_env, item_outcomes, score_counts, stack_up, until

pytestmark = [pytest.mark.integration, pytest.mark.timeout(420), pytest.mark.xdist_group("stack-faults")]

ITEMS = 30
SLOW_AGENT = {"kind": "agent", "model": {"offline": {"simulated_latency_ms": 150}}}


@pytest.fixture(scope="module")
def ha_stack() -> Iterator[StackState]:
    root = Path(tempfile.mkdtemp(prefix="yardstick-ha-test-"))  # outside basetemp: see conftest.py
    state_dir = root / "stack"
    try:
        stack_up(ha_stack_env(state_dir), "--ha")
        state = StackState.load(state_dir)
        assert state is not None and state.ha and len(state.nats_nodes) == 3 and len(state.pg_nodes) == 2
        yield state
    finally:
        launcher.down(state_dir)  # every node by its recorded pid (the restarted one included)
        shutil.rmtree(root, ignore_errors=True)


def _api(state: StackState) -> httpx.Client:
    return httpx.Client(
        base_url=state.api_url or "", headers={"Authorization": f"Bearer {state.api_key}"}, timeout=30
    )


def _start_experiment(api: httpx.Client, dataset: str) -> str:
    items = [
        {"id": f"{dataset}-{i}", "input": {"customer_utterance": "one hash brown"}} for i in range(ITEMS)
    ]
    api.post(
        f"/datasets/{dataset}/items", json={"items": items, "create": {"kind": "drive_thru"}}
    ).raise_for_status()
    body = {"name": dataset, "dataset": dataset, "concurrency": 4, "target": SLOW_AGENT}
    experiment_id: str = api.post("/experiments", json=body).json()["id"]
    until(lambda: api.get(f"/experiments/{experiment_id}").json()["progress"]["done"] >= 5, what="a few done")
    return experiment_id


def _services(state: StackState) -> dict[str, int]:
    return {r.name: r.pid for r in state.processes if not r.is_server}


def _assert_exactly_once(state: StackState, api: httpx.Client, experiment_id: str, dataset: str) -> None:
    until(
        lambda: api.get(f"/experiments/{experiment_id}").json()["status"] == "completed",
        what="the experiment completed",
    )
    assert item_outcomes(state.database_url, experiment_id) == sorted(
        (f"{dataset}-{i}", "ok", 1) for i in range(ITEMS)
    )
    scores = score_counts(state.database_url, experiment_id)
    evaluators = {name for _, name in scores}
    assert evaluators and set(scores.values()) == {1}
    assert len(scores) == ITEMS * len(evaluators)


def _assert_no_restarts(state: StackState, before: dict[str, int]) -> None:
    assert _services(state) == before
    assert all(r.alive() for r in state.processes if not r.is_server)


def test_the_results_stream_leader_killed_mid_experiment(
    ha_stack: StackState, capsys: pytest.CaptureFixture[str]
) -> None:
    state, api = ha_stack, _api(ha_stack)
    services = _services(state)
    stream = Topology(namespace=state.namespace).eval_results_stream
    experiment_id = _start_experiment(api, "nats-leader")

    leader = asyncio.run(stream_leader(state.nats_url, stream))
    node = next(n for n in state.nats_nodes if n.name == leader)
    record = state.record(node.name)
    assert record is not None
    killed_at = time.monotonic()
    psutil.Process(record.pid).kill()
    until(
        lambda: asyncio.run(stream_leader(state.nats_url, stream)) not in (None, leader),
        timeout_s=30,
        what="a new leader of the results stream",
    )
    elected_s = time.monotonic() - killed_at
    _assert_exactly_once(state, api, experiment_id, "nats-leader")
    completed_s = time.monotonic() - killed_at

    def coordinator_on_a_live_node() -> bool:
        nats = httpx.get(f"{state.api_url}/healthz", timeout=5).json()["nats"]
        return bool(nats["connected"]) and nats["server"] != f"127.0.0.1:{node.port}"

    until(coordinator_on_a_live_node, timeout_s=10, what="the coordinator names a live NATS node")
    _assert_no_restarts(state, services)
    with capsys.disabled():
        print(
            f"\n[ha] NATS stream leader {leader} killed: new leader after {elected_s:.1f}s, "
            f"experiment ({ITEMS} items) completed {completed_s:.1f}s after the kill"
        )

    restarted = start_node(node, [n.cluster_port for n in state.nats_nodes])  # whole again for the next test
    record.pid, record.create_time = restarted.pid, psutil.Process(restarted.pid).create_time()
    state.save()


def test_the_postgres_primary_killed_then_the_standby_promoted(
    ha_stack: StackState, capsys: pytest.CaptureFixture[str]
) -> None:
    state, api = ha_stack, _api(ha_stack)
    services = _services(state)
    primary, standby = state.pg_nodes
    experiment_id = _start_experiment(api, "pg-primary")

    postmaster = psutil.Process(primary.pid())
    victims = [postmaster, *postmaster.children(recursive=True)]
    killed_at = time.monotonic()
    for proc in victims:
        proc.kill()
    psutil.wait_procs(victims, timeout=10)
    until(
        lambda: httpx.get(f"{state.api_url}/healthz", timeout=10).status_code == 503,
        timeout_s=30,
        what="the coordinator's /healthz says PostgreSQL is gone",
    )
    assert "PostgreSQL" in httpx.get(f"{state.api_url}/healthz", timeout=10).json()["postgres"]

    promoted_at = time.monotonic()
    assert promote_standby(state).name == standby.name

    def coordinator_on_the_new_primary() -> bool:
        health = httpx.get(f"{state.api_url}/healthz", timeout=10)
        server = health.json()["postgres_server"]
        return health.status_code == 200 and server == {
            "problem": None,
            "server": f"127.0.0.1:{standby.port}",
            "primary": True,
        }

    until(coordinator_on_the_new_primary, timeout_s=60, what="the coordinator names the promoted primary")
    healthy_s = time.monotonic() - promoted_at
    _assert_exactly_once(state, api, experiment_id, "pg-primary")
    completed_s = time.monotonic() - killed_at
    roles = {r.name: r.role for r in state.processes if r.name.startswith("postgres")}
    assert roles == {primary.name: "down", standby.name: "primary"}
    _assert_no_restarts(state, services)
    with capsys.disabled():
        print(
            f"\n[ha] PostgreSQL primary killed, standby promoted {promoted_at - killed_at:.1f}s later: "
            f"coordinator healthy {healthy_s:.1f}s after the promotion, experiment ({ITEMS} items) "
            f"completed {completed_s:.1f}s after the kill"
        )
