"""Health of a running stack: NATS with JetStream, Postgres at the head migration, each service."""

from __future__ import annotations

import asyncio

import httpx
from pydantic import BaseModel, Field

from services.stack.nats_cluster import quiet_connect
from services.stack.state import StackState
from shared.db.migrate import current_revision, head_revision


class ComponentStatus(BaseModel):
    name: str
    healthy: bool
    detail: str
    pid: int | None = None
    role: str | None = Field(
        default=None, description="Of a server node: leader/follower, primary/standby, down"
    )


async def _nats_status(url: str) -> ComponentStatus:
    try:
        nc = await quiet_connect(url)
    except Exception as exc:
        return ComponentStatus(name="nats", healthy=False, detail=f"cannot connect to {url}: {exc}")
    try:
        info = await nc.jetstream().account_info()
        return ComponentStatus(
            name="nats",
            healthy=True,
            detail=f"{url}, JetStream on ({info.streams} streams, {info.consumers} consumers)",
        )
    except Exception as exc:
        return ComponentStatus(name="nats", healthy=False, detail=f"JetStream unavailable: {exc}")
    finally:
        await nc.close()


def _postgres_status(url: str) -> ComponentStatus:
    try:
        current = current_revision(url)
    except Exception as exc:
        return ComponentStatus(name="postgres", healthy=False, detail=f"cannot connect: {exc}")
    head = head_revision()
    ok = current == head
    detail = f"migrations at {current} (head {head})" + (
        "" if ok else " — run `yardstick stack up` to migrate"
    )
    return ComponentStatus(name="postgres", healthy=ok, detail=detail)


def _service_status(state: StackState) -> list[ComponentStatus]:
    out: list[ComponentStatus] = []
    for record in state.processes:
        if record.is_server:
            continue
        if not record.alive():
            out.append(
                ComponentStatus(
                    name=record.name, healthy=False, detail=f"not running (log: {record.log})", pid=record.pid
                )
            )
            continue
        try:
            response = httpx.get(f"http://127.0.0.1:{record.port}/healthz", timeout=2.0)
            healthy = response.status_code == 200
            detail = f"port {record.port}: {response.text[:80]}"
        except httpx.HTTPError as exc:
            healthy, detail = False, f"port {record.port}: {exc}"
        out.append(ComponentStatus(name=record.name, healthy=healthy, detail=detail, pid=record.pid))
    return out


def outbound_note(state: StackState) -> str:
    """What the services may call that a deployment would refuse (``TARGET_ALLOWED_NETWORKS``)."""
    allowed = state.target_allowed_networks.strip()
    if not allowed:
        return "outbound: http targets and upstream search may call public addresses only"
    return (
        f"outbound: http targets and upstream search may also call {allowed} "
        "(TARGET_ALLOWED_NETWORKS: `stack up` allows loopback for local development; "
        "deployments leave it unset)"
    )


def otlp_note(state: StackState) -> str | None:
    """Where instrumented applications send their traces, with the variables that say so."""
    if state.otlp_url is None:
        return None
    note = (
        f"traces: OTEL_EXPORTER_OTLP_ENDPOINT={state.otlp_url} (OTLP/HTTP, POST /v1/traces and /v1/logs; "
        f"a Langfuse SDK: LANGFUSE_BASE_URL={state.otlp_url}, LANGFUSE_SECRET_KEY=<key>) with "
        "OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer%20<key> (yardstick keys create --role ingest)"
    )
    if state.otlp_grpc_url is not None:
        note += (
            f"; OTLP/gRPC: OTEL_EXPORTER_OTLP_ENDPOINT={state.otlp_grpc_url} "
            "with OTEL_EXPORTER_OTLP_PROTOCOL=grpc"
        )
    return note


def _node_status(state: StackState) -> list[ComponentStatus]:
    """Each server node of an HA stack with its role now (also written back to stack.json)."""
    from services.stack.ha_servers import refresh_roles

    refresh_roles(state)
    state.save()
    return [
        ComponentStatus(
            name=record.name,
            healthy=record.role not in (None, "down"),
            detail=f"port {record.port}, data {record.data_dir}",
            pid=record.pid,
            role=record.role,
        )
        for record in state.processes
        if record.is_server and record.role is not None
    ]


def stack_status(state: StackState) -> list[ComponentStatus]:
    components = [asyncio.run(_nats_status(state.nats_url)), _postgres_status(state.database_url)]
    pids = {p.name: p.pid for p in state.processes}
    for component in components:
        component.pid = pids.get(component.name)
    nodes = _node_status(state) if state.ha else []
    return components + nodes + _service_status(state)
