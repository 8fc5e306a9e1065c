"""The drive-thru agent's traces survive an ingest outage longer than its exporter's retries: chat
turns served while the ingest is unreachable are answered, their spans kept in the agent's span
outbox (Postgres, /healthz says how many and that the ingest is unreachable); once the ingest is back
on the same address the outbox drains by itself and every turn's trace appears in
``GET /traces?service=drive-thru`` exactly once. A batch sent again changes nothing: the sampler
stores spans by (trace, span_id) (services/sampler/trace_store.py)."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import psycopg
import pytest
from nats.aio.client import Client as NatsClient
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.agent.http_app import create_app as create_agent_app
from services.agent.span_outbox import SpanOutboxStore
from services.cli.traffic_cmd import simulate
from services.stack.servers import free_port
from shared.db.api_keys import create_key_sync
from shared.db.session import plain_url
from tests.services.agent.app_client import running
from tests.services.ingest.harness import (
    SECRET,
    Ingest,
    chat_trace,
    ingest_settings,
    make_spans,
    serve_ingest,
)
from tests.services.live_api import Api, api  # noqa: F401  (the coordinator over real HTTP)
from tests.services.sampler.agent_traces import ITEMS, ingest, traced_agent_settings, tracing_sampler  # noqa: F401
from yardstick.api.roles import Role
from yardstick.api.topology import Topology

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]

Sessions = async_sessionmaker[AsyncSession]
CONVERSATIONS = 3
EXPORT_TIMEOUT_S = 1.0  # the exporter's own retries give up on a batch after this


def _outbox_bodies(database_url: str) -> list[bytes]:
    with psycopg.connect(plain_url(database_url)) as conn:
        rows = conn.execute("SELECT body FROM span_outbox ORDER BY created_at, id").fetchall()
    return [bytes(r[0]) for r in rows]


async def _until(check: Any, what: str, timeout_s: float = 60.0) -> None:
    """Poll an async condition the system offers no event for (the outbox row deleted after 2xx)."""
    async with asyncio.timeout(timeout_s):
        while not await check():
            await asyncio.sleep(0.1)


async def test_turns_served_while_the_ingest_is_away_are_traced_exactly_once_after(
    api: Api,  # noqa: F811
    nats_client: NatsClient,
    topology: Topology,
    session_factory: Sessions,
    database_url: str,
    nats_url: str,
) -> None:
    port = free_port()  # the ingest's address, unreachable until it starts there
    key = await asyncio.to_thread(create_key_sync, database_url, SECRET, "drive-thru agent", Role.INGEST)
    headers = {"Authorization": f"Bearer {key}"}
    settings = traced_agent_settings(
        database_url,
        nats_url,
        topology,
        f"http://127.0.0.1:{port}",
        key,
        otlp_export_timeout_s=EXPORT_TIMEOUT_S,
        span_outbox_retry_max_s=0.5,
    )
    app = create_agent_app(settings)
    async with (
        httpx.AsyncClient(base_url=api.url, headers={"Authorization": f"Bearer {api.key}"}) as c,
        tracing_sampler(nats_client, topology, session_factory) as handler,
        running(app) as agent,
    ):
        assert (await c.put("/online/config", json={"rate": 1.0})).status_code == 200
        result = await simulate(agent, CONVERSATIONS, seed=5, items=ITEMS)
        assert result.errors == 0, result.error_messages
        assert await app.state.telemetry.flush()  # every batch tried for EXPORT_TIMEOUT_S, then kept
        health = (await agent.get("/healthz")).json()
        assert health["status"] == "ok", health  # the agent serves; its traces wait
        outbox = health["traces"]["outbox"]
        assert outbox["held_batches"] > 0 and outbox["held_spans"] > 0, health
        assert outbox["ingest_reachable"] is False and outbox["last_error"], health
        held = await asyncio.to_thread(_outbox_bodies, database_url)
        assert len(held) == outbox["held_batches"]

        with serve_ingest(ingest_settings(database_url, nats_url, topology), port) as ingest:
            await asyncio.wait_for(handler.wait_handled(result.turns_sent, "stored"), 60)

            async def drained() -> bool:
                state = (await agent.get("/healthz")).json()["traces"]["outbox"]
                return bool(state["held_batches"] == 0 and state["ingest_reachable"])

            await _until(drained, "the span outbox drained")
            page = (await c.get("/traces", params={"service": "drive-thru", "limit": 200})).json()
            assert page["total"] == result.turns_sent
            assert len({item["trace_id"] for item in page["items"]}) == result.turns_sent
            spans = {item["trace_id"]: item["span_count"] for item in page["items"]}

            async with httpx.AsyncClient(
                headers={**headers, "Content-Type": "application/x-protobuf"}
            ) as raw:
                response = await raw.post(
                    ingest.traces_url, content=held[0]
                )  # a re-send, as after a lost 2xx
            assert response.status_code == 200, response.text
            later = await simulate(agent, 1, seed=6, items=ITEMS)  # spans behind the re-sent ones
            assert await app.state.telemetry.flush()
            await asyncio.wait_for(handler.wait_handled(result.turns_sent + later.turns_sent, "stored"), 60)
            again = (await c.get("/traces", params={"service": "drive-thru", "limit": 200})).json()
            assert again["total"] == result.turns_sent + later.turns_sent
            assert {i["trace_id"]: i["span_count"] for i in again["items"] if i["trace_id"] in spans} == spans


async def test_a_started_agent_sends_what_an_agent_killed_during_the_outage_left(
    api: Api,  # noqa: F811
    ingest: Ingest,  # noqa: F811
    nats_client: NatsClient,
    topology: Topology,
    session_factory: Sessions,
    database_url: str,
    nats_url: str,
) -> None:
    key = await asyncio.to_thread(create_key_sync, database_url, SECRET, "drive-thru agent", Role.INGEST)
    spans = make_spans(lambda p: chat_trace(p, turns=2), service="drive-thru")
    body = encode_spans(spans).SerializeToString()
    await asyncio.to_thread(SpanOutboxStore(database_url).put, body, len(spans), "left by a killed agent")
    settings = traced_agent_settings(database_url, nats_url, topology, ingest.url, key)
    async with (
        httpx.AsyncClient(base_url=api.url, headers={"Authorization": f"Bearer {api.key}"}) as c,
        tracing_sampler(nats_client, topology, session_factory) as handler,
        running(create_agent_app(settings)),
    ):
        assert (await c.put("/online/config", json={"rate": 1.0})).status_code == 200
        await asyncio.wait_for(handler.wait_handled(1, "stored"), 60)
        page = (await c.get("/traces", params={"service": "drive-thru"})).json()
        [item] = page["items"]
        assert item["trace_id"] == format(spans[0].context.trace_id, "032x")
        assert item["span_count"] == len(spans)
