"""The embedded-stack launcher against the session's real NATS and PostgreSQL: up, status, a second
up, restart of one service, down, and a port conflict during start-up."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import socket
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import nats
import psutil
import psycopg
import pytest

from services.stack import launcher
from services.stack.errors import StackError
from services.stack.servers import port_is_free
from services.stack.services_spec import service_specs
from services.stack.state import LOCAL_ALLOWED_NETWORKS, StackState
from services.stack.status import outbound_note, stack_status
from shared.db.session import plain_url
from shared.messaging.streams import stream_configs
from yardstick.api.topology import Topology

pytestmark = pytest.mark.integration

DRIFT_ENV = {"CHAT_OFFLINE": json.dumps({"simulate_silent_drift": True})}


@dataclass(frozen=True)
class StackEnv:
    state_dir: Path
    port_base: int
    namespace: str
    nats_url: str
    database_url: str

    def port(self, label: str) -> int:
        return self.port_base + _offsets()[label]


def _offsets() -> dict[str, int]:
    """Service label (as `stack status` shows it) -> port offset, for the current environment."""
    return {
        (spec.name if spec.replicas == 1 else f"{spec.name}-{index}"): spec.offset(index)
        for spec in service_specs()
        for index in range(spec.replicas)
    }


def _free_port_base() -> int:
    """A base below the kernel's ephemeral range whose every service port is free right now."""
    grpc = [spec.grpc_port_offset for spec in service_specs() if spec.grpc_port_offset is not None]
    offsets = [*_offsets().values(), *grpc]
    for _ in range(200):
        base = random.randrange(20_000, 32_000)
        if all(port_is_free(base + offset) for offset in offsets):
            return base
    raise RuntimeError("no free port range for the stack's services between 20000 and 32000")


async def _delete_streams(nats_url: str, topology: Topology) -> None:
    nc = await nats.connect(nats_url, connect_timeout=5, max_reconnect_attempts=1)
    try:
        js = nc.jetstream()
        for config in stream_configs(topology):
            with contextlib.suppress(Exception):
                await js.delete_stream(config.name or "")
    finally:
        await nc.close()


@pytest.fixture
def stack_env(
    monkeypatch: pytest.MonkeyPatch,
    server_dir: Path,
    nats_url: str,
    database_url: str,
    topology: Topology,
) -> Iterator[StackEnv]:
    """The launcher pointed at the session's servers (it starts neither) and this test's own
    database; `down` afterwards, whatever the test did."""
    monkeypatch.setenv("NATS_URL", nats_url)
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.setenv("YARDSTICK_EVAL_WORKERS", "1")
    base = _free_port_base()
    monkeypatch.setenv("YARDSTICK_PORT_BASE", str(base))
    env = StackEnv(server_dir / "stack", base, topology.namespace, nats_url, database_url)
    try:
        yield env
    finally:
        launcher.down(env.state_dir)
        asyncio.run(_delete_streams(nats_url, topology))


def _children() -> set[int]:
    return {p.pid for p in psutil.Process().children(recursive=True)}


def test_up_status_restart_down(
    stack_env: StackEnv, pg_base_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TARGET_ALLOWED_NETWORKS", raising=False)
    labels = set(_offsets())
    assert labels == {"agent", "search_proxy", "evaluator", "coordinator", "sampler", "ingest"}

    state = launcher.up(stack_env.state_dir, stack_env.namespace)

    # The given servers are used as they are: nothing of its own started, no `yardstick` database.
    assert (state.nats_url, state.database_url) == (stack_env.nats_url, stack_env.database_url)
    assert not state.own_nats and not state.own_postgres
    with psycopg.connect(plain_url(pg_base_url)) as conn:
        created = conn.execute("SELECT 1 FROM pg_database WHERE datname = 'yardstick'").fetchone()
    assert created is None, "the launcher created a `yardstick` database although DATABASE_URL was set"

    saved = StackState.load(stack_env.state_dir)
    assert saved is not None
    assert stat.S_IMODE(StackState.path(stack_env.state_dir).stat().st_mode) == 0o600
    assert saved.namespace == stack_env.namespace
    assert saved.api_url == f"http://127.0.0.1:{stack_env.port('coordinator')}"
    assert saved.agent_url == f"http://127.0.0.1:{stack_env.port('agent')}"
    assert saved.otlp_url == f"http://127.0.0.1:{stack_env.port('ingest')}"
    assert saved.otlp_grpc_url == f"http://127.0.0.1:{stack_env.port_base + 5}"
    assert saved.api_key and saved.api_key == state.api_key
    assert {p.name: p.port for p in saved.processes} == {label: stack_env.port(label) for label in labels}
    assert all(psutil.Process(p.pid).is_running() for p in saved.processes)

    components = {c.name: c for c in stack_status(saved)}
    assert set(components) == labels | {"nats", "postgres"}
    assert [c for c in components.values() if not c.healthy] == []

    # Loopback targets are allowed for local development, and status says so.
    assert saved.target_allowed_networks == LOCAL_ALLOWED_NETWORKS == "127.0.0.0/8,::1/128"
    for p in saved.processes:
        assert psutil.Process(p.pid).environ()["TARGET_ALLOWED_NETWORKS"] == LOCAL_ALLOWED_NETWORKS, p.name
    assert "may also call 127.0.0.0/8,::1/128 (TARGET_ALLOWED_NETWORKS" in outbound_note(saved)

    # The saved key is a working CLI key on the coordinator's API.
    config_url = f"{saved.api_url}/online/config"
    assert httpx.get(config_url, timeout=5).status_code == 401
    authed = httpx.get(config_url, headers={"Authorization": f"Bearer {saved.api_key}"}, timeout=5)
    assert authed.status_code == 200, authed.text

    # A second `up` on the live state dir refuses and leaves the running stack alone.
    with pytest.raises(StackError, match="already running") as refused:
        launcher.up(stack_env.state_dir, stack_env.namespace)
    assert str(stack_env.state_dir) in str(refused.value)
    assert StackState.load(stack_env.state_dir) == saved
    assert all(p.alive() for p in saved.processes)

    # Restart the agent with the drift switch on: new pid, same port, healthy, variable in its env.
    old = {p.name: p for p in saved.processes}
    record = launcher.restart_service("agent", DRIFT_ENV, stack_env.state_dir)
    assert record.name == "agent"
    assert record.pid != old["agent"].pid
    assert record.port == old["agent"].port
    assert not psutil.pid_exists(old["agent"].pid)
    assert psutil.Process(record.pid).environ()["CHAT_OFFLINE"] == DRIFT_ENV["CHAT_OFFLINE"]
    restarted = StackState.load(stack_env.state_dir)
    assert restarted is not None
    assert {p.name: p.pid for p in restarted.processes} == {
        name: (record.pid if name == "agent" else p.pid) for name, p in old.items()
    }
    unhealthy = [c for c in stack_status(restarted) if not c.healthy]
    assert unhealthy == []

    with pytest.raises(StackError, match="no service 'agnet'") as unknown:
        launcher.restart_service("agnet", None, stack_env.state_dir)
    assert all(label in str(unknown.value) for label in labels)

    # Down stops every process by pid and removes the state file.
    stopped = launcher.down(stack_env.state_dir)
    assert sorted(stopped) == sorted(labels)
    assert [p.pid for p in restarted.processes if psutil.pid_exists(p.pid)] == []
    assert not StackState.path(stack_env.state_dir).exists()
    assert all(port_is_free(stack_env.port(label)) for label in labels)
    with pytest.raises(StackError, match="no stack is running"):
        launcher.restart_service("agent", None, stack_env.state_dir)


def test_port_in_use_fails_and_leaves_nothing_running(stack_env: StackEnv) -> None:
    """The search proxy's port is taken: the agent, already started by then, is stopped again and
    the error names the port."""
    port = stack_env.port("search_proxy")
    before = _children()
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as blocker:
        blocker.bind(("127.0.0.1", port))
        blocker.listen()
        with pytest.raises(StackError, match=f"port {port} for search_proxy is in use"):
            launcher.up(stack_env.state_dir, stack_env.namespace)
    assert _children() - before == set()
    assert not StackState.path(stack_env.state_dir).exists()
    started_logs = {p.stem for p in (stack_env.state_dir / "logs").glob("*.log")}
    assert started_logs == {"agent"}, "the agent should have started (and been stopped) first"
    assert all(port_is_free(stack_env.port(label)) for label in started_logs)


@pytest.fixture
def two_samplers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("YARDSTICK_SAMPLERS", "2")  # before stack_env picks its ports


def test_two_samplers_are_started_listed_and_share_the_spans_consumer(
    two_samplers: None, stack_env: StackEnv
) -> None:
    state = launcher.up(stack_env.state_dir, stack_env.namespace)
    samplers = sorted((p.name, p.port) for p in state.processes if p.name.startswith("sampler"))
    base = stack_env.port_base
    assert samplers == [("sampler-0", base + 3), ("sampler-1", base + 20)]
    components = {c.name: c for c in stack_status(state)}
    assert components["sampler-0"].healthy and components["sampler-1"].healthy
    for _, port in samplers:
        health = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5).json()
        assert health["spans_backlog"] == {"pending": 0, "ack_pending": 0, "messages": 0}
    assert sorted(launcher.down(stack_env.state_dir)) == sorted(
        ["agent", "search_proxy", "evaluator", "coordinator", "sampler-0", "sampler-1", "ingest"]
    )
