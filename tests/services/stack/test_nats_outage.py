"""A NATS outage longer than nats-py's own reconnect budget (60 attempts), against a real stack:
every service says so on /healthz (503) and keeps trying; chat turns are still answered during the
outage, their traces retried by the agent's OpenTelemetry exporter while the ingest service answers
503, then kept in its span outbox (Postgres) until the ingest takes them; when nats-server is back on
the same store every service reconnects by itself, the search-proxy answers on NATS again, every
sampled turn's trace is stored and scored exactly once, and an experiment completes with every item
once."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import httpx
import nats
import psycopg
import pytest

from services.stack import launcher
from services.stack.servers import free_port, start_nats
from services.stack.state import StackState
from shared.db.session import plain_url
from tests.services.stack.fault_helpers import item_outcomes, until
from tests.services.stack.test_launcher import StackEnv, _free_port_base
from yardstick.api.search_messages import SearchRequest, SearchResponse
from yardstick.api.topology import Topology

pytestmark = [pytest.mark.integration, pytest.mark.timeout(240), pytest.mark.xdist_group("stack-faults")]

SERVICES = ("agent", "search_proxy", "evaluator", "coordinator", "sampler", "ingest")
ATTEMPTS = 80  # nats-py closes a connection for good after 60 by default


@pytest.fixture
def outage_env(
    monkeypatch: pytest.MonkeyPatch, server_dir: Path, database_url: str
) -> Iterator[tuple[StackEnv, Path, int]]:
    """A stack on a nats-server of its own (this test stops it) and this test's database."""
    port = free_port()
    store = server_dir / "nats-store"
    server = start_nats(port, store, server_dir / "nats.log")
    url = f"nats://127.0.0.1:{port}"
    monkeypatch.setenv("NATS_URL", url)
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.setenv("YARDSTICK_EVAL_WORKERS", "1")
    monkeypatch.setenv("NATS_RECONNECT_WAIT_S", "0.02")
    base = _free_port_base()
    monkeypatch.setenv("YARDSTICK_PORT_BASE", str(base))
    env = StackEnv(server_dir / "stack", base, "outage", url, database_url)
    try:
        yield env, store, port
    finally:
        launcher.down(env.state_dir)
        for proc in (server,):
            proc.terminate()
        _kill_nats_on(port)


def _kill_nats_on(port: int) -> None:
    import psutil

    for proc in psutil.process_iter(["name", "cmdline"]):
        if proc.info["name"] == "nats-server" and f"{port}" in " ".join(proc.info["cmdline"] or []):
            proc.terminate()


def _health(state: StackState) -> dict[str, tuple[int, dict[str, object]]]:
    out = {}
    for record in state.processes:
        response = httpx.get(f"http://127.0.0.1:{record.port}/healthz", timeout=5)
        out[record.name] = (response.status_code, response.json())
    return out


async def _search(nats_url: str, namespace: str) -> SearchResponse:
    """One query over ``search.query`` (request/reply through NATS): it raises without an answer."""
    nc = await nats.connect(nats_url)
    try:
        request = SearchRequest(query="menu", limit=3).model_dump_json().encode()
        reply = await nc.request(Topology(namespace=namespace).search_query, request, timeout=10)
        return SearchResponse.model_validate_json(reply.data)
    finally:
        await nc.close()


def _nats_of(body: dict[str, object]) -> dict[str, object]:
    nats = body.get("nats")
    assert isinstance(nats, dict), body
    return nats


def test_services_survive_an_outage_longer_than_any_reconnect_budget(
    outage_env: tuple[StackEnv, Path, int],
) -> None:
    env, store, port = outage_env
    state = launcher.up(env.state_dir, env.namespace)
    assert all(code == 200 for code, _ in _health(state).values())
    auth = {"Authorization": f"Bearer {state.api_key}"}
    client = httpx.Client(base_url=state.api_url or "", headers=auth)
    client.put("/online/config", json={"rate": 1.0}).raise_for_status()  # sample every conversation

    _kill_nats_on(port)

    def all_down_long_enough() -> bool:
        health = _health(state)
        return all(
            code == 503 and int(_nats_of(body).get("failed_attempts", 0)) > ATTEMPTS  # type: ignore[call-overload]
            for code, body in health.values()
        )

    until(all_down_long_enough, what=f"every service 503 after > {ATTEMPTS} failed reconnects")
    agent = httpx.Client(base_url=state.agent_url or "", timeout=30)
    conversation = agent.post("/conversations").json()["conversation_id"]
    for text in ("two hash browns please", "that's all"):  # answered while NATS is away
        agent.post(f"/conversations/{conversation}/messages", json={"text": text}).raise_for_status()
    server = start_nats(port, store, env.state_dir.parent / "nats-again.log")
    try:
        until(lambda: all(code == 200 for code, _ in _health(state).values()), what="every service back")
        answered = asyncio.run(_search(env.nats_url, env.namespace))  # the search-proxy answers again
        assert answered.error is None, answered

        def stored_turns() -> list[tuple[int, int, int]]:
            """(turn, scores, distinct evaluators) per sampled trace of the conversation."""
            with psycopg.connect(plain_url(env.database_url)) as conn:
                rows = conn.execute(
                    "SELECT t.record->'roots'->0->>'start_unix_nano', count(*), count(DISTINCT sc.name) "
                    "FROM traces t JOIN trace_scores sc ON sc.trace_pk = t.id "
                    "WHERE t.conversation_id = %s AND t.application = 'drive-thru' "
                    "GROUP BY t.id, t.day ORDER BY t.started_at",
                    (conversation,),
                ).fetchall()
            return [(n, int(c), int(d)) for n, (_, c, d) in enumerate(rows)]

        until(lambda: len(stored_turns()) == 2, what="both turns taken during the outage sampled and scored")
        turns = stored_turns()
        assert [t for t, _, _ in turns] == [0, 1]  # each turn's trace stored once
        assert all(n == d > 0 for _, n, d in turns), turns  # each evaluator scored it once
        items = [{"id": f"o-{i}", "input": {"customer_utterance": "two hash browns"}} for i in range(8)]
        client.post(
            "/datasets/outage/items", json={"items": items, "create": {"kind": "drive_thru"}}
        ).raise_for_status()
        accepted = client.post(
            "/experiments", json={"name": "after", "dataset": "outage", "target": {"kind": "agent"}}
        )
        accepted.raise_for_status()
        experiment_id = accepted.json()["id"]
        until(
            lambda: client.get(f"/experiments/{experiment_id}").json()["status"] == "completed",
            what="the experiment after the outage completed",
        )
        assert item_outcomes(env.database_url, experiment_id) == [(f"o-{i}", "ok", 1) for i in range(8)]
    finally:
        server.terminate()
        server.wait(10)
