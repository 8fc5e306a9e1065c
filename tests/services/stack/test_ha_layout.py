"""The layout of `stack up --ha` without starting it: node configs that route to each other on their
own ports, the DSN and variables the services are given, which records are servers."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from services.stack.errors import StackError
from services.stack.ha_servers import refuse_stale_primary
from services.stack.launcher import service_env
from services.stack.nats_cluster import cluster_nodes, node_config
from services.stack.nodes import PgNode
from services.stack.pg_replication import multi_host_url
from services.stack.services_spec import service_specs
from services.stack.state import ProcessRecord, StackState
from shared.db import async_url, plain_url
from yardstick.api.nats_servers import nats_servers

pytestmark = pytest.mark.unit


def test_each_node_has_its_own_ports_and_store_and_routes_to_all(tmp_path: Path) -> None:
    nodes = cluster_nodes(tmp_path, tmp_path / "logs", [4001, 4002, 4003], [5001, 5002, 5003])
    assert [n.name for n in nodes] == ["nats-1", "nats-2", "nats-3"]
    assert len({n.store_dir for n in nodes}) == 3
    config = node_config(nodes[1], [5001, 5002, 5003])
    assert 'server_name: "nats-2"' in config and 'listen: "127.0.0.1:4002"' in config
    assert f'store_dir: "{tmp_path / "nats-2"}"' in config
    assert 'listen: "127.0.0.1:5002"' in config
    assert all(f"nats-route://127.0.0.1:{p}" in config for p in (5001, 5002, 5003))
    assert config.count("{") == config.count("}")


def test_the_services_get_every_node_the_replicas_and_both_hosts(tmp_path: Path) -> None:
    pg = [PgNode(name=f"postgres-{i}", port=6000 + i, data_dir=str(tmp_path), log="l") for i in (1, 2)]
    state = StackState(
        state_dir=str(tmp_path),
        nats_url="nats://127.0.0.1:4001,nats://127.0.0.1:4002,nats://127.0.0.1:4003",
        database_url=multi_host_url(pg, "yardstick"),
        namespace="ys",
        started_at=datetime.now(UTC),
        own_nats=True,
        own_postgres=True,
        ha=True,
        stream_replicas=3,
    )
    env = service_env(state, service_specs()[0], 8701, "secret", 0)
    assert len(nats_servers(env["NATS_URL"])) == 3 and env["NATS_STREAM_REPLICAS"] == "3"
    assert plain_url(env["DATABASE_URL"]) == (
        "postgresql://postgres@127.0.0.1:6001,127.0.0.1:6002/yardstick?target_session_attrs=read-write"
    )
    assert "host=127.0.0.1:6001&host=127.0.0.1:6002" in async_url(env["DATABASE_URL"])


@pytest.mark.parametrize(
    ("name", "server"),
    [("nats", True), ("nats-3", True), ("postgres", True), ("postgres-2", True), ("evaluator-1", False)],
)
def test_servers_are_told_from_services_by_name(name: str, server: bool) -> None:
    assert ProcessRecord(name=name, pid=1, log="l", create_time=0.0).is_server is server


def test_a_promoted_standby_is_never_joined_by_its_stale_primary(tmp_path: Path) -> None:
    standby = tmp_path / "postgres-2"
    standby.mkdir()
    (standby / "PG_VERSION").write_text("16")
    (standby / "standby.signal").write_text("")
    refuse_stale_primary(tmp_path)  # still a standby: the pair starts as it was
    (standby / "standby.signal").unlink()  # what promotion does
    with pytest.raises(StackError, match=r"postgres-2 .* was promoted in an earlier run"):
        refuse_stale_primary(tmp_path)
