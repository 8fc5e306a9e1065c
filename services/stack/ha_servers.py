"""The servers of ``yardstick stack up --ha``: three NATS nodes in one JetStream cluster and a
PostgreSQL primary with a synchronous streaming standby, all on loopback; node roles; promotion.

The services get ``NATS_URL`` = the three client URLs (comma-separated), ``NATS_STREAM_REPLICAS=3``
and ``DATABASE_URL`` = both PostgreSQL hosts with ``target_session_attrs=read-write``. Ports:
``YARDSTICK_NATS_PORT`` (+0, +1, +2; routes on ``YARDSTICK_NATS_CLUSTER_PORT``, default the client
base + 20) and ``YARDSTICK_PG_PORT`` (+0 primary, +1 standby; default 15432).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path

import psutil

from services.stack.errors import StackError
from services.stack.nats_cluster import cluster_nodes, start_node, stream_leader, wait_for_jetstream
from services.stack.nodes import PgNode
from services.stack.pg_replication import is_primary, multi_host_url, promote, start_primary, start_standby
from services.stack.services_spec import nats_port
from services.stack.state import ProcessRecord, StackState
from yardstick.api.topology import Topology

HA_REPLICAS = 3
NODES = 3


def pg_port() -> int:
    return int(os.environ.get("YARDSTICK_PG_PORT", "15432"))


def nats_cluster_port() -> int:
    return int(os.environ.get("YARDSTICK_NATS_CLUSTER_PORT", str(nats_port() + 20)))


def _server_record(name: str, pid: int, port: int, log: str, data_dir: str, role: str) -> ProcessRecord:
    proc = psutil.Process(pid)
    return ProcessRecord(
        name=name, pid=pid, port=port, log=log, create_time=proc.create_time(), role=role, data_dir=data_dir
    )


def start_ha_servers(
    state: StackState, state_dir: Path, logs: Path, ensure_database: Callable[[str], str]
) -> None:
    """Start the cluster and the pair (unless ``NATS_URL`` / ``DATABASE_URL`` name servers already),
    recording each process in ``state`` as soon as it runs (so a failure leaves none behind)."""
    if not state.nats_url:
        base, cbase = nats_port(), nats_cluster_port()
        nodes = cluster_nodes(
            (state_dir / "nats-cluster").resolve(),
            logs,
            [base + i for i in range(NODES)],
            [cbase + i for i in range(NODES)],
        )
        routes = [n.cluster_port for n in nodes]
        for node in nodes:
            proc = start_node(node, routes)
            state.processes.append(
                _server_record(node.name, proc.pid, node.port, node.log, node.store_dir, "follower")
            )
            state.save()
        state.nats_nodes = nodes
        state.nats_url = ",".join(n.url for n in nodes)
        state.own_nats = True
        state.stream_replicas = HA_REPLICAS
        asyncio.run(wait_for_jetstream(state.nats_url))
    if not state.database_url:
        folder = (state_dir / "pg-ha").resolve()
        refuse_stale_primary(folder)
        primary = start_primary(folder, "postgres-1", pg_port())
        _record_pg(state, primary, "primary")
        standby = start_standby(folder, "postgres-2", pg_port() + 1, primary)
        _record_pg(state, standby, "standby")
        state.pg_nodes = [primary, standby]
        state.own_postgres = True
        state.postgres_data = str(folder)
        state.database_url = ensure_database(multi_host_url(state.pg_nodes, "postgres"))
    state.save()


def refuse_stale_primary(folder: Path) -> None:
    """A standby promoted in an earlier run left ``postgres-1`` behind its timeline: starting that as
    a primary again would give two primaries, and clients would write to whichever answers first."""
    standby = folder / "postgres-2"
    if (standby / "PG_VERSION").exists() and not (standby / "standby.signal").exists():
        raise StackError(
            f"postgres-2 in {folder} was promoted in an earlier run, so postgres-1 is stale: "
            f"keep the data with your own tools (pg_rewind), or remove {folder} to start afresh"
        )


def _record_pg(state: StackState, node: PgNode, role: str) -> None:
    pid = node.pid()
    if pid is None:
        raise StackError(f"{node.name} started but wrote no postmaster.pid in {node.data_dir}")
    state.processes.append(_server_record(node.name, pid, node.port, node.log, node.data_dir, role))
    state.save()


def refresh_roles(state: StackState) -> None:
    """Ask each node what it is now: NATS leader/follower of the eval tasks stream, PostgreSQL
    primary/standby; ``down`` when it does not run or answer."""
    if state.nats_nodes:
        leader = asyncio.run(
            stream_leader(state.nats_url, Topology(namespace=state.namespace).eval_tasks_stream)
        )
        for node in state.nats_nodes:
            record = state.record(node.name)
            if record is not None:
                record.role = (
                    "down" if not record.alive() else ("leader" if node.name == leader else "follower")
                )
    for pg in state.pg_nodes:
        record = state.record(pg.name)
        if record is not None:
            primary = is_primary(pg) if record.alive() else None
            record.role = "down" if primary is None else ("primary" if primary else "standby")


def promote_standby(state: StackState) -> PgNode:
    """Promote the standby of an HA stack; its writes stop waiting for a standby (STACK-FACTS' trap)."""
    if not state.pg_nodes:
        raise StackError("this stack has no PostgreSQL standby: start it with `yardstick stack up --ha`")
    standby = next((n for n in state.pg_nodes if is_primary(n) is False), None)
    if standby is None:
        raise StackError("no standby answers: `yardstick stack status` shows each node's role")
    promote(standby)
    refresh_roles(state)
    state.save()
    return standby
