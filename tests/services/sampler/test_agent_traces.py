"""The drive-thru agent is one application among others: its chat turns, reported with the
OpenTelemetry SDK over OTLP/HTTP to the real ingest service, are assembled, sampled and scored by the
real sampler and appear in ``GET /traces?service=drive-thru`` with their messages, tool calls and
tokens (none: the offline model bills nothing), one trace per turn, the turns of a conversation
sharing its id."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from nats.aio.client import Client as NatsClient
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from shared.db.api_keys import create_key_sync
from tests.services.ingest.harness import SECRET, Ingest
from tests.services.live_api import Api, api  # noqa: F401  (the coordinator over real HTTP)
from tests.services.sampler.agent_traces import agent_conversations, ingest, tracing_sampler  # noqa: F401
from yardstick.api.roles import Role
from yardstick.api.topology import Topology

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]

Sessions = async_sessionmaker[AsyncSession]
APPLICATION = "drive-thru"
CONVERSATIONS = 4
EVALUATORS = {"no_hallucinated_items", "tool_call_protocol", "finalize_after_confirmation"}


async def test_the_agents_turns_are_traces_sampled_scored_and_listed(
    api: Api,  # noqa: F811
    ingest: Ingest,  # noqa: F811
    nats_client: NatsClient,
    topology: Topology,
    session_factory: Sessions,
    database_url: str,
    nats_url: str,
) -> None:
    async with httpx.AsyncClient(base_url=api.url, headers={"Authorization": f"Bearer {api.key}"}) as c:
        assert (await c.put("/online/config", json={"rate": 1.0})).status_code == 200
        key = await asyncio.to_thread(create_key_sync, database_url, SECRET, "drive-thru agent", Role.INGEST)
        async with tracing_sampler(nats_client, topology, session_factory) as handler:
            result = await agent_conversations(
                database_url, nats_url, topology, ingest.url, key, CONVERSATIONS, seed=3
            )
            await asyncio.wait_for(handler.wait_handled(result.turns_sent, "stored"), 60)

        page = (await c.get("/traces", params={"service": APPLICATION, "limit": 200})).json()
        assert page["total"] == result.turns_sent
        by_conversation: dict[str, list[dict[str, object]]] = {}
        for item in page["items"]:
            by_conversation.setdefault(str(item["conversation_id"]), []).append(item)
        assert {c: len(t) for c, t in by_conversation.items()} == result.turns_by_conversation
        for item in page["items"]:
            assert item["model"] == "offline:ask"
            assert set(item["scores"]) == EVALUATORS, item
            assert (item["input_tokens"], item["output_tokens"]) == (0, 0), item  # offline: nothing billed
        finals = [t for t in page["items"] if "finalize_order" in t["tool_names"]]
        assert finals and all(t["scores"]["finalize_after_confirmation"] == 1.0 for t in finals)
        first = next(t for t in page["items"] if "add_item_to_order" in t["tool_names"])

        record = (await c.get(f"/traces/{first['trace_id']}")).json()["record"]
        assert record["application"] == APPLICATION and record["provider"] == "offline"
        assert record["input_messages"][0]["role"] == "system"
        assert record["input_messages"][-1]["role"] == "user" and record["input_messages"][-1]["content"]
        assert record["output_messages"][-1]["content"]
        tools = record["tool_calls"]
        assert all(t["span_id"] for t in tools)  # the tools' own spans, not only the model's requests
        add = next(t for t in tools if t["name"] == "add_item_to_order")
        assert add["arguments"]["item_id"] and add["result"]["added"] is True
        root = record["roots"][0]
        assert root["kind"] == "agent" and root["name"] == f"invoke_agent {APPLICATION}"
        assert {child["kind"] for child in root["children"]} == {"llm", "tool"}
        assert (await c.get("/traces", params={"service": "another-app"})).json()["total"] == 0
