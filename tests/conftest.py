"""Test harness: real nats-server and PostgreSQL, started once per session from the venv's
binaries; every test gets its own NATS namespace (streams, subjects) and its own database."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import nats
import psutil
import psycopg
import pytest
from nats.aio.client import Client as NatsClient
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.stack.servers import (
    ServerStartError,
    free_port,
    postgres_uri_for,
    start_nats,
    start_postgres,
)
from shared.db.migrate import upgrade_to_head
from shared.db.session import make_engine, make_session_factory, plain_url
from shared.evaluators import RegisteredEvaluator
from shared.evaluators.item_results import ItemResult, as_item_results
from shared.messaging.streams import declare
from tests.evaluator_registry import add_for_test
from yardstick.api.evaluation import Evaluation
from yardstick.api.topology import Topology

TEMPLATE_DB = "yardstick_template"

# The CLI modules create their Rich consoles at import, so the width is fixed by the COLUMNS seen then.
# A pytest-xdist worker runs with COLUMNS=80 (a single pytest process has none and gets the CLI's pipe
# width), which cut the CLI tests' tables; the tests set COLUMNS per command where they need it.
os.environ.pop("COLUMNS", None)

# `yardstick stack up` records where the stack runs in a per-user file (yardstick/stack_location.py); the
# tests' stacks record theirs in a folder of this test process, never in the user's own state folder.
os.environ["XDG_STATE_HOME"] = tempfile.mkdtemp(prefix="yardstick-test-state-")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test must say which tier it is in."""
    for item in items:
        tiers = {m.name for m in item.iter_markers()} & {"unit", "integration"}
        if len(tiers) != 1:
            raise pytest.UsageError(f"{item.nodeid}: mark it with exactly one of @unit / @integration")


@pytest.fixture(scope="session")
def server_root() -> Iterator[Path]:
    """Server data lives outside pytest's basetemp: pytest prunes old basetemps, and a concurrent
    pytest session would delete a live server's files."""
    root = Path(tempfile.mkdtemp(prefix="yardstick-test-"))
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def nats_url(server_root: Path) -> Iterator[str]:
    if url := os.environ.get("TEST_NATS_URL"):
        yield url
        return
    root = server_root / "nats"
    port, proc = _start_nats_on_a_free_port(root)
    yield f"nats://127.0.0.1:{port}"
    proc.terminate()
    proc.wait(10)


def _start_nats_on_a_free_port(root: Path, attempts: int = 5) -> tuple[int, subprocess.Popen[bytes]]:
    """A free port can be taken between choosing it and nats-server binding it (pytest-xdist workers
    and other sessions start servers at the same moment): choose again then."""
    for attempt in range(attempts):
        port = free_port()
        try:
            return port, start_nats(port, root / "store", root / "nats.log")
        except ServerStartError:
            if attempt == attempts - 1:
                raise
    raise AssertionError("unreachable")


@pytest.fixture(scope="session")
def pg_base_url(server_root: Path) -> Iterator[str]:
    """URI of the session's PostgreSQL server, with a migrated template database."""
    root = server_root / "pg"
    root.mkdir()
    uri, pid = start_postgres(root / "data", keep_running=False)
    with psycopg.connect(plain_url(uri), autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {TEMPLATE_DB}")
        conn.execute(f"CREATE DATABASE {TEMPLATE_DB}")
    upgrade_to_head(postgres_uri_for(uri, TEMPLATE_DB))
    yield uri
    if pid is not None:
        _stop_postmaster(pid)


def _stop_postmaster(pid: int) -> None:
    """Stop the session's PostgreSQL before its folder goes. pgserver would stop it only at exit, by
    a pid list kept in that folder: deleted by then, so the server outlived every test session."""
    with contextlib.suppress(psutil.NoSuchProcess):
        postmaster = psutil.Process(pid)
        postmaster.send_signal(signal.SIGINT)  # "fast" shutdown: disconnects clients, then exits
        try:
            postmaster.wait(30)
        except psutil.TimeoutExpired:
            postmaster.kill()


@pytest.fixture
def database_url(pg_base_url: str) -> Iterator[str]:
    """A fresh database at the newest migration, for this test only."""
    name = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(plain_url(pg_base_url), autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE_DB}")
    yield postgres_uri_for(pg_base_url, name)
    with psycopg.connect(plain_url(pg_base_url), autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture
async def session_factory(database_url: str) -> AsyncIterator[async_sessionmaker[AsyncSession]]:
    engine = make_engine(database_url)
    yield make_session_factory(engine)
    await engine.dispose()


@pytest.fixture
def topology() -> Topology:
    """A NATS namespace of this test's own."""
    return Topology(namespace=f"t{uuid.uuid4().hex[:10]}")


@pytest.fixture
async def nats_client(nats_url: str, topology: Topology) -> AsyncIterator[NatsClient]:
    """A connection with this test's streams and durable consumers declared (deleted afterwards)."""
    nc = await nats.connect(nats_url)
    js = nc.jetstream()
    await declare(js, topology)
    yield nc
    for stream in (
        topology.eval_tasks_stream,
        topology.eval_results_stream,
        topology.traffic_spans_stream,
        topology.alerts_stream,
    ):
        with contextlib.suppress(Exception):
            await js.delete_stream(stream)
    for bucket in (topology.target_throttle_bucket, topology.eval_credits_bucket):
        with contextlib.suppress(Exception):
            await js.delete_key_value(bucket)
    await nc.close()


@pytest.fixture
def item_ids_evaluator(monkeypatch: pytest.MonkeyPatch) -> list[list[ItemResult]]:
    """A non-built-in run evaluator ``item_ids`` (registered for this test); returns what it saw."""
    seen: list[list[ItemResult]] = []

    def item_ids(*, item_results: list[Any], tag: str | None = None, **kwargs: Any) -> Evaluation:
        results = as_item_results(item_results)
        seen.append(results)
        return Evaluation(
            name="item_ids",
            value=len(results),
            metadata={"ids": [f"{r.item_id}/{r.trial}" for r in results], "tag": tag},
        )

    entry = RegisteredEvaluator("item_ids", item_ids, "run", "1", "test evaluator", False)
    add_for_test(monkeypatch, entry)
    return seen
