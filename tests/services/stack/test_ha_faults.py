"""Faults on the HA stack (`yardstick stack up --ha`: three NATS nodes, R3 streams, a PostgreSQL
primary with a synchronous standby), each in the middle of an experiment:

- kill -9 of the JetStream leader of the results stream: a new leader is elected, the publishes that
  failed meanwhile are retried through the election, and the experiment completes;
- one NATS node down (kill -9) for longer than an election, then started again: the node that
  leads the ``traffic.spans`` stream, while OTLP traces are sent through the ingest service; every
  service's /healthz names a live node meanwhile, the node rejoins, and the sampler decided on every
  trace once and stored and scored the ones it kept once;
- kill -9 of the PostgreSQL primary, then `yardstick stack promote` (the CLI, in its own process):
  /healthz says PostgreSQL is gone, then names the promoted server, and the experiment completes.

In each, every item ends ``ok`` exactly once with every score once, and no service was restarted.
The recovery times are printed. One stack serves all three tests (it takes a minute to start on two
cores); the NATS tests start the node they stopped again, so the next test has a whole cluster.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import nats.errors
import psutil
import pytest

from services.stack import launcher
from services.stack.nats_cluster import quiet_connect, start_node, stream_leader
from services.stack.nodes import NatsNode
from services.stack.state import StackState
from tests.services.stack.fault_helpers import (
    YARDSTICK,
    ha_stack_env,
    item_outcomes,
    score_counts,
    stack_up,
    until,
)
from tests.services.stack.fault_traffic import Sender, sampled, sampler_decisions, stored_traces, trace_bodies
from yardstick.api.topology import Topology

pytestmark = [pytest.mark.integration, pytest.mark.timeout(420), pytest.mark.xdist_group("stack-faults")]

ITEMS = 30
STOPPED_S = 15.0  # an election takes 5-10 s
TRACES = 40
TRAFFIC_APP = "ha-shop"
TRAFFIC_RATE = 0.5
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

    _start_again(state, node)  # whole again for the next test


def _start_again(state: StackState, node: NatsNode) -> None:
    """Start a stopped node again on its own store, recorded in stack.json (so `down` stops it)."""
    record = state.record(node.name)
    assert record is not None
    restarted = start_node(node, [n.cluster_port for n in state.nats_nodes])
    record.pid, record.create_time = restarted.pid, psutil.Process(restarted.pid).create_time()
    state.save()


def _replicas_current(state: StackState, stream: str) -> bool:
    """Every replica of ``stream`` is caught up with its leader (a restarted node has rejoined).
    A stream-info call that times out while the node rejoins (its catch-up can move the leader)
    means "not yet", not a failure."""

    async def check() -> bool:
        try:
            nc = await quiet_connect(state.nats_url)
        except (OSError, nats.errors.Error):
            return False
        try:
            cluster = (await nc.jetstream().stream_info(stream)).cluster
        except (nats.errors.Error, TimeoutError):
            return False
        finally:
            await nc.close()
        peers = cluster.replicas if cluster is not None and cluster.replicas else []
        return len(peers) == len(state.nats_nodes) - 1 and all(p.current for p in peers)

    return asyncio.run(check())


def _service_health(state: StackState) -> dict[str, tuple[int, str | None]]:
    """(status, NATS server) of every service whose /healthz reports its NATS connection."""
    out: dict[str, tuple[int, str | None]] = {}
    for record in state.processes:
        if record.is_server or record.port is None:
            continue
        answer = httpx.get(f"http://127.0.0.1:{record.port}/healthz", timeout=5)
        nats = answer.json().get("nats")
        if isinstance(nats, dict):
            out[record.name] = (answer.status_code, nats.get("server"))
    return out


def test_a_nats_node_stopped_longer_than_an_election_with_traffic(
    ha_stack: StackState, capsys: pytest.CaptureFixture[str]
) -> None:
    state, api = ha_stack, _api(ha_stack)
    services = _services(state)
    topology = Topology(namespace=state.namespace)
    spans_stream = topology.traffic_spans_stream
    config = api.get("/online/config").json()
    config.pop("updated_at", None)
    config["applications"] = {TRAFFIC_APP: {"rate": TRAFFIC_RATE, "filters": {}}}
    api.put("/online/config", json=config).raise_for_status()
    bodies = trace_bodies(TRAFFIC_APP, TRACES)
    experiment_id = _start_experiment(api, "nats-stopped")
    sender = Sender(
        state.otlp_url or "", state.api_key or "", list(bodies.values()), gap_s=STOPPED_S / TRACES
    )
    sender.start()

    leader = asyncio.run(stream_leader(state.nats_url, spans_stream))
    node = next(n for n in state.nats_nodes if n.name == leader)
    record = state.record(node.name)
    assert record is not None
    stopped_at = time.monotonic()
    stopped = psutil.Process(record.pid)
    stopped.kill()  # kill -9: no leadership handed over (SIGTERM hands it over in ~1 s)
    stopped.wait(10)
    until(
        lambda: asyncio.run(stream_leader(state.nats_url, spans_stream)) not in (None, leader),
        timeout_s=30,
        what="a new leader of the spans stream",
    )
    elected_s = time.monotonic() - stopped_at
    gone = f"127.0.0.1:{node.port}"

    def every_service_on_a_live_node() -> bool:
        health = _service_health(state)
        return {"coordinator", "sampler", "ingest", "agent"} <= set(health) and all(
            status == 200 and server not in (None, gone) for status, server in health.values()
        )

    until(every_service_on_a_live_node, timeout_s=30, what="every service names a live NATS node")
    moved_s = time.monotonic() - stopped_at
    while time.monotonic() - stopped_at < STOPPED_S:  # still true while the node stays down
        assert every_service_on_a_live_node(), _service_health(state)
        time.sleep(0.5)

    _start_again(state, node)
    restarted_at = time.monotonic()
    until(lambda: _replicas_current(state, spans_stream), timeout_s=60, what="the node rejoined")
    rejoined_s = time.monotonic() - restarted_at
    _assert_exactly_once(state, api, experiment_id, "nats-stopped")
    completed_s = time.monotonic() - stopped_at
    sender.join(120)
    assert sender.error is None and not sender.is_alive(), sender.answers

    kept = sampled(list(bodies), TRAFFIC_RATE)
    sampler = state.record("sampler")
    assert sampler is not None and sampler.port is not None
    sampler_url = f"http://127.0.0.1:{sampler.port}"
    until(
        lambda: (
            sum(sampler_decisions(sampler_url, TRAFFIC_APP).values()) >= TRACES
            and len(stored_traces(state.database_url, TRAFFIC_APP)) >= len(kept)
        ),
        timeout_s=60,
        what="the sampler decided on every trace",
    )
    traced_s = time.monotonic() - stopped_at
    decisions = sampler_decisions(sampler_url, TRAFFIC_APP)
    assert decisions == {"sampled": len(kept), "not_sampled": TRACES - len(kept)}
    stored = stored_traces(state.database_url, TRAFFIC_APP)
    assert set(stored) == kept
    evaluators = {len(counts) for counts in stored.values()}
    assert len(evaluators) == 1 and all(counts == [1] * len(counts) for counts in stored.values())
    _assert_no_restarts(state, services)
    with capsys.disabled():
        print(
            f"\n[ha] NATS node {leader} (spans stream leader) killed, down for {STOPPED_S:.0f}s: "
            f"new leader after {elected_s:.1f}s, every service on a live node after {moved_s:.1f}s, "
            f"node caught up {rejoined_s:.1f}s after its restart, experiment ({ITEMS} items) "
            f"completed {completed_s:.1f}s and {TRACES} traces ({len(kept)} kept, "
            f"answers {sender.answers}) all decided {traced_s:.1f}s after the kill"
        )


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
    env = os.environ | {"YARDSTICK_HOME": state.state_dir}
    done = subprocess.run(
        [YARDSTICK, "stack", "promote"], env=env, capture_output=True, text=True, timeout=60
    )
    said = done.stdout + done.stderr  # the CLI's console writes to stderr
    assert done.returncode == 0 and f"{standby.name} promoted: primary on port {standby.port}" in said, said
    state = StackState.load(Path(state.state_dir)) or state

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
