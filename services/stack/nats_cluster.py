"""Three nats-server processes in one JetStream cluster on loopback (``yardstick stack up --ha``).

Each node has its own config file, client port, cluster (route) port and store folder; the routes
list all three, so any two form a quorum. The metadata leader is elected ~0.5 s after start; a
stream leader that dies is replaced in 4.7-7.9 s (nats-server's election timeout), which the
clients ride out (:mod:`shared.messaging.election`).
"""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import nats
import nats.errors
from nats.aio.client import Client as NatsClient

from services.stack.nodes import NatsNode
from services.stack.servers import ServerStartError, nats_server_binary, port_is_free, wait_for_port
from yardstick.api.nats_servers import nats_servers

CLUSTER_NAME = "yardstick"


def node_config(node: NatsNode, routes: list[int]) -> str:
    route_urls = ", ".join(f'"nats-route://127.0.0.1:{p}"' for p in routes)
    return "\n".join(
        [
            f'server_name: "{node.name}"',
            f'listen: "127.0.0.1:{node.port}"',
            f'jetstream {{ store_dir: "{node.store_dir}" }}',
            f'cluster {{ name: "{CLUSTER_NAME}", listen: "127.0.0.1:{node.cluster_port}",',
            f"  routes: [{route_urls}] }}",
            "",
        ]
    )


def cluster_nodes(root: Path, logs: Path, ports: list[int], cluster_ports: list[int]) -> list[NatsNode]:
    return [
        NatsNode(
            name=f"nats-{i}",
            port=port,
            cluster_port=cport,
            store_dir=str(root / f"nats-{i}"),
            log=str(logs / f"nats-{i}.log"),
        )
        for i, (port, cport) in enumerate(zip(ports, cluster_ports, strict=True), start=1)
    ]


def start_node(node: NatsNode, routes: list[int]) -> subprocess.Popen[bytes]:
    """Start one node (again, after a stop: same config, same store) and wait for its client port."""
    for port in (node.port, node.cluster_port):
        if not port_is_free(port):
            raise ServerStartError(
                f"port {port} for {node.name} is in use: set YARDSTICK_NATS_PORT to another base"
            )
    store = Path(node.store_dir)
    store.mkdir(parents=True, exist_ok=True)
    config = store.parent / f"{node.name}.conf"
    config.write_text(node_config(node, routes))
    with Path(node.log).open("ab") as log:
        proc = subprocess.Popen(
            [nats_server_binary(), "-c", str(config)],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    wait_for_port(node.port, proc, Path(node.log), f"nats-server {node.name}")
    return proc


def start_cluster(nodes: list[NatsNode]) -> list[subprocess.Popen[bytes]]:
    """Start every node, then wait until JetStream answers (a metadata leader was elected)."""
    routes = [n.cluster_port for n in nodes]
    procs = [start_node(node, routes) for node in nodes]
    asyncio.run(wait_for_jetstream(",".join(n.url for n in nodes)))
    return procs


async def _ignore(_exc: Exception) -> None:
    """A node that refuses is expected while another answers: not worth a traceback on stderr."""


async def quiet_connect(nats_url: str, timeout_s: float = 2.0) -> NatsClient:
    """A short-lived connection to any node of ``nats_url`` that answers, for probes and set-up."""
    return await nats.connect(
        servers=nats_servers(nats_url), connect_timeout=timeout_s, max_reconnect_attempts=0, error_cb=_ignore
    )


async def wait_for_jetstream(nats_url: str, timeout_s: float = 30.0) -> None:
    """Until the cluster answers a JetStream call (its metadata leader is elected)."""
    nc = await quiet_connect(nats_url, 5.0)
    try:
        async with asyncio.timeout(timeout_s):
            while True:
                try:
                    await nc.jetstream().account_info()
                    return
                except nats.errors.Error:
                    await asyncio.sleep(0.1)  # polling the election: the server sends no event for it
    except TimeoutError as exc:
        raise ServerStartError(f"the NATS cluster elected no JetStream leader within {timeout_s:g}s") from exc
    finally:
        await nc.close()


async def stream_leader(nats_url: str, stream: str) -> str | None:
    """server_name of ``stream``'s leader, None when it has none (or the cluster does not answer)."""
    try:
        nc = await quiet_connect(nats_url)
    except (OSError, nats.errors.Error):
        return None
    try:
        info = await nc.jetstream().stream_info(stream)
    except nats.errors.Error:
        return None
    finally:
        await nc.close()
    return info.cluster.leader if info.cluster is not None else None
