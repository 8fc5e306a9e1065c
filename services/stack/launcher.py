"""``yardstick stack up|down|status``: the embedded stack on one machine, no Docker needed."""

from __future__ import annotations

import asyncio
import os
import secrets
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import httpx
import psutil
import psycopg

from services.stack.errors import StackError
from services.stack.servers import (
    ServerStartError,
    port_is_free,
    postgres_uri_for,
    start_nats,
    start_postgres,
    tail,
)
from services.stack.services_spec import (
    ServiceSpec,
    nats_port,
    port_base,
    service_grpc_port,
    service_port,
    service_specs,
)
from services.stack.state import DEFAULT_STATE_DIR, LOCAL_ALLOWED_NETWORKS, ProcessRecord, StackState
from shared.db.migrate import upgrade_to_head
from shared.db.session import plain_url
from shared.messaging.streams import declare_at
from yardstick.api.roles import Role
from yardstick.api.stack_location import read_location as read_stack_location
from yardstick.api.stack_location import user_state_file
from yardstick.api.topology import DEFAULT_NAMESPACE, Topology

DATABASE_NAME = "yardstick"
HEALTH_TIMEOUT_S = 90.0


def _record(
    name: str, proc: subprocess.Popen[bytes] | psutil.Process, port: int | None, log: Path
) -> ProcessRecord:
    ps = proc if isinstance(proc, psutil.Process) else psutil.Process(proc.pid)
    return ProcessRecord(name=name, pid=ps.pid, port=port, log=str(log), create_time=ps.create_time())


def _secret(state_dir: Path) -> str:
    path = state_dir / "api-key-secret"
    if not path.exists():  # created 0600: never readable by others, not even for a moment
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(secrets.token_urlsafe(32))
    return path.read_text().strip()


def _ensure_database(base_uri: str) -> str:
    with psycopg.connect(plain_url(base_uri), autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (DATABASE_NAME,)).fetchone()
        if not exists:
            conn.execute(f"CREATE DATABASE {DATABASE_NAME}")
    return postgres_uri_for(base_uri, DATABASE_NAME)


def service_env(state: StackState, spec: ServiceSpec, port: int, secret: str, index: int) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        NATS_URL=state.nats_url,
        NATS_STREAM_REPLICAS=str(state.stream_replicas),
        DATABASE_URL=state.database_url,
        NATS_NAMESPACE=state.namespace,
        HTTP_HOST="127.0.0.1",
        HTTP_PORT=str(port),
        YARDSTICK_API_KEY_SECRET=secret,
        WORKER_ID=f"{spec.name}-{index}",
        AGENT_URL=state.agent_url or "",
        TARGET_ALLOWED_NETWORKS=state.target_allowed_networks,
        PYTHONUNBUFFERED="1",
    )
    if spec.name == "agent" and state.otlp_url and state.agent_ingest_key:
        env.update(agent_otlp_env(state.otlp_url, state.agent_ingest_key))
    if spec.grpc_port_offset is not None:
        env["INGEST_GRPC_PORT"] = str(port_base() + spec.grpc_port_offset + index)
    return env


def agent_otlp_env(otlp_url: str, ingest_key: str) -> dict[str, str]:
    """The agent reports its chat turns as traces to this stack's ingest service, with its own key."""
    return {
        "OTEL_EXPORTER_OTLP_ENDPOINT": otlp_url,
        "OTEL_EXPORTER_OTLP_HEADERS": f"Authorization=Bearer%20{ingest_key}",
    }


def _wait_healthy(name: str, proc: subprocess.Popen[bytes], port: int, log: Path) -> None:
    deadline = time.monotonic() + HEALTH_TIMEOUT_S
    url = f"http://127.0.0.1:{port}/healthz"
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise StackError(
                f"{name} exited with code {proc.returncode} while starting. Last lines of {log}:\n{tail(log)}"
            )
        try:
            if httpx.get(url, timeout=1.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise StackError(
        f"{name} was not healthy at {url} after {HEALTH_TIMEOUT_S:.0f}s. Last lines of {log}:\n{tail(log)}"
    )


@dataclass(frozen=True)
class _Spawned:
    record: ProcessRecord
    proc: subprocess.Popen[bytes]
    port: int
    log: Path

    def wait_healthy(self) -> None:
        _wait_healthy(self.record.name, self.proc, self.port, self.log)


def _spawn_service(
    state: StackState,
    spec: ServiceSpec,
    index: int,
    secret: str,
    logs: Path,
    extra_env: dict[str, str] | None = None,
) -> _Spawned:
    """Start one service process and record it in the state; does not wait for it."""
    port = port_base() + spec.offset(index)
    label = spec.name if spec.replicas == 1 else f"{spec.name}-{index}"
    if not port_is_free(port):
        raise StackError(f"port {port} for {label} is in use: free it or set YARDSTICK_PORT_BASE")
    log = logs / f"{label}.log"
    with log.open("ab") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", spec.module],
            env=service_env(state, spec, port, secret, index) | (extra_env or {}),
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    record = _record(label, proc, port, log)
    state.processes.append(record)
    state.save()
    return _Spawned(record, proc, port, log)


def up(
    state_dir: Path = DEFAULT_STATE_DIR,
    namespace: str = DEFAULT_NAMESPACE,
    extra_env: dict[str, str] | None = None,
    *,
    ha: bool = False,
) -> StackState:
    """Start NATS, Postgres, migrations, streams, then every service (``extra_env`` added to each
    service's environment); returns the saved state. ``ha``: a three-node JetStream cluster with
    R3 streams and a PostgreSQL primary with a standby (:mod:`services.stack.ha_servers`)."""
    existing = StackState.load(state_dir)
    if existing is not None and existing.alive_processes():
        names = ", ".join(p.name for p in existing.alive_processes())
        raise StackError(
            f"a stack is already running from {state_dir} ({names}): "
            "use `yardstick stack status`, or `yardstick stack down` first"
        )
    _refuse_a_second_stack(state_dir)
    state_dir.mkdir(parents=True, exist_ok=True)
    logs = state_dir / "logs"
    logs.mkdir(exist_ok=True)
    state = StackState(
        state_dir=str(state_dir),
        nats_url=os.environ.get("NATS_URL", ""),
        database_url=os.environ.get("DATABASE_URL", ""),
        namespace=namespace,
        started_at=datetime.now(UTC),
        own_nats=False,
        own_postgres=False,
        target_allowed_networks=os.environ.get("TARGET_ALLOWED_NETWORKS", LOCAL_ALLOWED_NETWORKS),
        ha=ha,
        stream_replicas=int(os.environ.get("NATS_STREAM_REPLICAS", "1")),
    )
    try:
        if ha:
            from services.stack.ha_servers import start_ha_servers

            start_ha_servers(state, state_dir, logs, _ensure_database)
        else:
            _start_servers(state, state_dir, logs)
        secret = _secret(state_dir)
        upgrade_to_head(state.database_url)
        asyncio.run(declare_at(state.nats_url, Topology(namespace=namespace), state.stream_replicas))
        state.agent_url = f"http://127.0.0.1:{port_base() + 1}"
        state.api_url = f"http://127.0.0.1:{port_base()}"
        state.otlp_url = f"http://127.0.0.1:{service_port('ingest')}"
        state.otlp_grpc_url = f"http://127.0.0.1:{service_grpc_port('ingest')}"
        state.api_key = _stack_key(state.database_url, secret, "cli (local stack)", Role.OWNER)
        state.agent_ingest_key = _stack_key(
            state.database_url, secret, "drive-thru agent (local stack)", Role.INGEST
        )
        state.save()
        # All at once, then each waited for: they depend only on NATS and Postgres, and their
        # start-up is mostly imports, which overlap on two cores.
        started = [
            _spawn_service(state, spec, index, secret, logs, extra_env)
            for spec in service_specs()
            if spec.exists()
            for index in range(spec.replicas)
        ]
        for spawned in started:
            spawned.wait_healthy()
        state.publish_location()
    except BaseException as exc:  # whatever went wrong, leave no process behind
        down(state_dir)
        if isinstance(exc, (ServerStartError, StackError, OSError)):
            raise StackError(str(exc)) from exc
        raise
    return state


def restart_service(
    name: str, extra_env: dict[str, str] | None = None, state_dir: Path = DEFAULT_STATE_DIR
) -> ProcessRecord:
    """Stop one service of the running stack and start it again on its port, with ``extra_env`` added.

    ``name`` is the label ``stack status`` shows (``agent``, ``evaluator-1`` …).
    """
    state = StackState.load(state_dir)
    if state is None or not state.alive_processes():
        raise StackError(f"no stack is running from {state_dir}: `yardstick stack up` first")
    labels = {
        (spec.name if spec.replicas == 1 else f"{spec.name}-{index}"): (spec, index)
        for spec in service_specs()
        for index in range(spec.replicas)
    }
    if name not in labels:
        raise StackError(f"no service {name!r} in this stack; services: {', '.join(labels)}")
    spec, index = labels[name]
    for record in [p for p in state.processes if p.name == name]:
        _stop([record])
        state.processes.remove(record)
    state.save()
    spawned = _spawn_service(state, spec, index, _secret(state_dir), state_dir / "logs", extra_env)
    spawned.wait_healthy()
    state.publish_location()  # the coordinator's pid may have changed
    return spawned.record


def _refuse_a_second_stack(state_dir: Path) -> None:
    """The per-user file names a running stack of another folder on this stack's ports: starting a
    second one there would fail on its ports (a stack on other ports may run beside it; the per-user
    file then names the newer one)."""
    path = user_state_file()
    if path is None:
        return
    try:
        other = read_stack_location(path)
    except ValueError:
        return  # unreadable: this stack overwrites it
    if (
        other is not None
        and other.running()
        and other.api_url == f"http://127.0.0.1:{port_base()}"
        and Path(other.state_dir).resolve() != state_dir.resolve()
    ):
        raise StackError(
            f"a stack is already running from {other.state_dir} (API {other.api_url}; recorded in {path}): "
            "it is found from any folder; stop it with `yardstick stack down` there first"
        )


def _start_servers(state: StackState, state_dir: Path, logs: Path) -> None:
    if not state.nats_url:
        port = nats_port()
        proc = start_nats(port, state_dir / "nats", logs / "nats.log")
        state.nats_url = f"nats://127.0.0.1:{port}"
        state.own_nats = True
        state.processes.append(_record("nats", proc, port, logs / "nats.log"))
        state.save()
    if not state.database_url:
        data = (state_dir / "pg").resolve()
        uri, pid = start_postgres(data, keep_running=True)
        state.own_postgres = True
        state.postgres_data = str(data)
        if pid is not None:
            state.processes.append(_record("postgres", psutil.Process(pid), None, data / "log"))
        state.database_url = _ensure_database(uri)
        state.save()


def _stack_key(database_url: str, secret: str, name: str, role: Role) -> str:
    from shared.db.api_keys import create_key_sync  # the coordinator owns keys

    return create_key_sync(database_url, secret, name=name, role=role)


def _stop(records: list[ProcessRecord], timeout: float = 15.0) -> None:
    """Signal every live process at once, then wait for each (killed after ``timeout``)."""
    procs: list[psutil.Process] = []
    for record in records:
        if not record.alive():
            continue
        proc = psutil.Process(record.pid)
        # Postgres: SIGINT is its "fast shutdown"; everything else stops cleanly on SIGTERM.
        proc.send_signal(signal.SIGINT if record.name.startswith("postgres") else signal.SIGTERM)
        procs.append(proc)
    _gone, alive = psutil.wait_procs(procs, timeout=timeout)
    for proc in alive:
        proc.kill()
    psutil.wait_procs(alive, timeout=5)


def down(state_dir: Path = DEFAULT_STATE_DIR) -> list[str]:
    """Stop everything the launcher started by pid: the services together, then the servers."""
    state = StackState.load(state_dir)
    if state is None:
        return []
    live = [record for record in reversed(state.processes) if record.alive()]
    _stop([r for r in live if not r.is_server])
    for server in (r for r in live if r.is_server):  # postgres before nats: reverse start order
        _stop([server])
    state.remove()
    state.withdraw_location()
    return [record.name for record in live]
