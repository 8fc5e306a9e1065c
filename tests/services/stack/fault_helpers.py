"""What the fault-injection tests share: waiting for a condition, a stack environment with its own
servers, and counting an experiment's items by outcome in PostgreSQL."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import psycopg

from services.stack.servers import port_is_free
from shared.db.session import plain_url
from tests.services.stack.test_launcher import _free_port_base

YARDSTICK = str(Path(sys.executable).parent / "yardstick")


def until(check: Callable[[], bool], timeout_s: float = 120.0, what: str = "") -> None:
    """Poll ``check`` every 0.1 s until it holds; an API that fails meanwhile counts as not yet."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            if check():
                return
        except (httpx.HTTPError, ValueError, KeyError):
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"never happened: {what}")
        time.sleep(0.1)


def own_stack_env(state_dir: Path) -> dict[str, str]:
    """The environment of a `yardstick stack up` that starts its own nats-server and PostgreSQL."""
    env = {k: v for k, v in os.environ.items() if k not in ("NATS_URL", "DATABASE_URL")}
    return env | {
        "YARDSTICK_HOME": str(state_dir),
        "YARDSTICK_PORT_BASE": str(_free_port_base()),
        "YARDSTICK_NATS_PORT": str(free_port_runs(1)[0]),
        "YARDSTICK_EVAL_WORKERS": "1",
    }


SERVER_PORTS = range(10_000, 20_000)
"""Where the servers' ports are picked: below the kernel's ephemeral range (32768 on), so no outgoing
connection (of this test, the other xdist worker, or a node's own routes) can take one between the
pick and the server's start, and below the services' range of ``_free_port_base``."""


def free_port_runs(*counts: int) -> list[int]:
    """The first ports of disjoint runs of ``counts`` consecutive ports, each free right now.

    The runs are random, so two tests (or two xdist workers) rarely reach for the same ports; a run
    is checked port by port and never overlaps an earlier run of the same call."""
    rng = random.Random()  # its own generator: pytest plugins may reseed the global one per test
    taken: set[int] = set()
    firsts: list[int] = []
    for count in counts:
        for _ in range(200):
            first = rng.randrange(SERVER_PORTS.start, SERVER_PORTS.stop - count)
            run = set(range(first, first + count))
            if not run & taken and all(port_is_free(port) for port in run):
                taken |= run
                firsts.append(first)
                break
        else:
            raise RuntimeError(f"no {count} consecutive free ports in {SERVER_PORTS}")
    return firsts


def ha_stack_env(state_dir: Path) -> dict[str, str]:
    """The environment of a `yardstick stack up --ha` with its own cluster and PostgreSQL pair."""
    nats, cluster, pg = free_port_runs(3, 3, 2)
    return own_stack_env(state_dir) | {
        "YARDSTICK_NATS_PORT": str(nats),
        "YARDSTICK_NATS_CLUSTER_PORT": str(cluster),
        "YARDSTICK_PG_PORT": str(pg),
    }


def stack_up(env: dict[str, str], *options: str) -> None:
    """`yardstick stack up` in its own process, as on a command line."""
    done = subprocess.run(
        [YARDSTICK, "stack", "up", *options], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr


def query(database_url: str, sql: str, *params: str) -> list[tuple[Any, ...]]:
    """The rows of one read-only query, on a connection of its own."""
    with psycopg.connect(plain_url(database_url)) as conn:
        return conn.execute(sql, params).fetchall()  # type: ignore[arg-type]  # sql is a literal


def item_outcomes(database_url: str, experiment_id: str) -> list[tuple[str, str, int]]:
    """(item, status, rows) of an experiment: exactly once is one ``ok`` row per item."""
    rows = query(
        database_url,
        "SELECT item_id, status, count(*) FROM experiment_items WHERE experiment_id = %s "
        "GROUP BY item_id, status ORDER BY item_id",
        experiment_id,
    )
    return [(str(i), str(s), int(n)) for i, s, n in rows]


def score_counts(database_url: str, experiment_id: str) -> dict[tuple[str, str], int]:
    """(item, evaluator) -> score rows of an experiment: every score once is 1 everywhere."""
    rows = query(
        database_url,
        "SELECT item_id, name, count(*) FROM scores WHERE experiment_id = %s GROUP BY item_id, name",
        experiment_id,
    )
    return {(str(i), str(n)): int(c) for i, n, c in rows}
