"""The chat API against real PostgreSQL (checkpointer) and NATS; its turns reported as OpenTelemetry
traces (kept in memory here, read back through the trace mapping the sampler uses)."""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

import httpx
import pytest
from langchain_core.messages import AIMessage, BaseMessage
from nats.aio.client import Client as NatsClient
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from services.agent.chat_models import ModelFactory
from services.agent.http_app import create_app
from services.agent.offline_model import OfflineDriveThruModel
from services.agent.settings import AgentSettings
from tests.services.agent.app_client import running
from tests.services.agent.exported_traces import exported_records
from yardstick.api.topology import Topology
from yardstick.api.trace_record import TraceRecord

from .conftest import offline_settings

pytestmark = [pytest.mark.integration, pytest.mark.timeout(60)]


class SwitchableModel(OfflineDriveThruModel):
    """The offline model, made to fail while ``broken`` is set."""

    broken: ClassVar[bool] = False

    def next_message(self, messages: list[BaseMessage]) -> AIMessage:
        if SwitchableModel.broken:
            raise ValueError("model returned garbage")
        return super().next_message(messages)


@pytest.fixture
def settings(database_url: str, nats_url: str, topology: Topology, nats_client: NatsClient) -> AgentSettings:
    return offline_settings(database_url=database_url, nats_url=nats_url, nats_namespace=topology.namespace)


async def say(client: httpx.AsyncClient, conversation_id: str, text: str) -> dict[str, Any]:
    response = await client.post(f"/conversations/{conversation_id}/messages", json={"text": text})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def test_conversation_survives_a_restart_and_every_turn_is_a_trace(settings: AgentSettings) -> None:
    memory = InMemorySpanExporter()
    async with running(create_app(settings, span_exporter=memory)) as client:
        health = await client.get("/healthz")
        assert health.status_code == 200
        assert health.json()["postgres"] == {"problem": None, "server": "local socket", "primary": True}
        created = await client.post("/conversations")
        assert created.status_code == 201
        conversation_id = created.json()["conversation_id"]
        first = await say(client, conversation_id, "two egg mcmuffins and a large coffee")
        assert first["turn_index"] == 0
        assert [(line["item_id"], line["quantity"]) for line in first["order"]] == [
            ("egg-mcmuffin", 2),
            ("coffee", 1),
        ]

    restarted = InMemorySpanExporter()
    async with running(create_app(settings, span_exporter=restarted)) as client:  # same database
        readback = await say(client, conversation_id, "that's all")
        assert readback["turn_index"] == 1
        assert readback["reply"].endswith("Is that correct?")
        assert "two Egg McMuffin" in readback["reply"]
        assert readback["tool_calls"] == ["get_current_order"]
        final = await say(client, conversation_id, "yes")
        assert final["finalized"] is True and final["tool_calls"] == ["finalize_order"]
        view = (await client.get(f"/conversations/{conversation_id}")).json()
        assert view["finalized"] is True and view["turn_count"] == 3
        assert [line["item_id"] for line in view["order"]] == ["egg-mcmuffin", "coffee"]
        assert [h["role"] for h in view["history"]] == ["customer", "agent"] * 3
        path = f"/conversations/{conversation_id}/messages"
        again = await client.post(path, json={"text": "and a hash brown"})
        assert again.status_code == 409 and "finalized" in again.json()["detail"]

    records = exported_records(memory, restarted)
    assert len(records) == 3  # the refused fourth turn never ran
    assert {r.application for r in records} == {"drive-thru"}
    assert {r.conversation_id for r in records} == {conversation_id}
    first_turn, readback_turn, final_turn = records
    assert _utterance(first_turn) == "two egg mcmuffins and a large coffee"
    assert [c.name for c in first_turn.tool_calls] == ["lookup_menu_item"] * 2 + ["add_item_to_order"] * 2
    add = first_turn.tool_calls[2]  # the tool's own span, its injected menu not among the arguments
    assert add.span_id is not None and add.call_id is not None
    assert add.arguments == {
        "item_id": "egg-mcmuffin",
        "item_name": "Egg McMuffin",
        "category_name": "breakfast",
        "quantity": 2,
    }
    assert isinstance(add.result, dict) and add.result["added"] is True
    assert (first_turn.usage.input_tokens, first_turn.usage.output_tokens) == (0, 0)  # offline: not billed
    assert first_turn.input_messages[0].role == "system"
    assert [k.kind for k in first_turn.roots[0].children] == [
        "llm",
        "tool",
        "tool",
        "llm",
        "tool",
        "tool",
        "llm",
    ]
    assert readback_turn.output_messages[-1].content.endswith("Is that correct?")
    # the customer's answer and the reply before it, for finalize_after_confirmation
    assert [(m.role, m.content) for m in final_turn.input_messages if m.role == "user"][-1] == ("user", "yes")
    assert [c.name for c in final_turn.tool_calls] == ["finalize_order"]
    assert final_turn.model == "offline:ask" and final_turn.provider == "offline"
    assert not any(r.errors for r in records)


def _utterance(record: TraceRecord) -> str:
    return [m.content for m in record.input_messages if m.role == "user"][-1]


async def test_model_failure_is_502_and_leaves_the_conversation_unharmed(
    database_url: str, nats_url: str, topology: Topology, nats_client: NatsClient
) -> None:
    settings = offline_settings(
        database_url=database_url,
        nats_url=nats_url,
        nats_namespace=topology.namespace,
        chat_model="mistral",
        mistral_api_key="test-key",
    )
    models = ModelFactory(settings, lambda config, s: SwitchableModel())
    memory = InMemorySpanExporter()
    async with running(create_app(settings, models, span_exporter=memory)) as client:
        conversation_id = (await client.post("/conversations")).json()["conversation_id"]
        await say(client, conversation_id, "an egg mcmuffin")
        before = (await client.get(f"/conversations/{conversation_id}")).json()
        SwitchableModel.broken = True
        try:
            path = f"/conversations/{conversation_id}/messages"
            failed = await client.post(path, json={"text": "two hotcakes"})
        finally:
            SwitchableModel.broken = False
        assert failed.status_code == 502
        assert "model returned garbage" in failed.json()["detail"]
        assert (await client.get(f"/conversations/{conversation_id}")).json() == before
        after = await say(client, conversation_id, "two hotcakes")
        assert after["turn_index"] == 1
        assert [(line["item_id"], line["quantity"]) for line in after["order"]] == [
            ("egg-mcmuffin", 1),
            ("hotcakes", 2),
        ]
    ok, failed_turn, retried = exported_records(memory)  # the failed turn is reported too, as an error
    assert not ok.errors and not retried.errors
    failures = {e.span_name.split()[0]: (e.type, e.message) for e in failed_turn.errors}
    assert failures["invoke_agent"] == (
        "services.agent.conversations.AgentTurnFailedError",
        "the agent's model failed (ValueError: model returned garbage); try again",
    )
    assert failures["chat"] == ("ValueError", "model returned garbage")


async def test_input_errors_and_missing_model_key(
    database_url: str, nats_url: str, topology: Topology, nats_client: NatsClient
) -> None:
    settings = offline_settings(
        database_url=database_url, nats_url=nats_url, nats_namespace=topology.namespace, chat_model="mistral"
    )
    app = create_app(settings)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://agent") as cold:
        assert (await cold.get("/healthz")).status_code == 503  # not started yet
    async with running(app) as client:
        conversation_id = (await client.post("/conversations")).json()["conversation_id"]
        path = f"/conversations/{conversation_id}/messages"
        empty = await client.post(path, json={"text": "   "})
        assert empty.status_code == 422 and "text is empty" in empty.text
        long = await client.post(path, json={"text": "x" * 2001})
        assert long.status_code == 422 and "limit is 2000" in long.text
        unknown = await client.post("/conversations/nope/messages", json={"text": "hi"})
        assert unknown.status_code == 404 and "POST /conversations" in unknown.json()["detail"]
        assert (await client.get("/conversations/nope")).status_code == 404
        for raw in (
            '{"text": "a\\u0000b"}',
            '{"text": "\\ud800"}',
            '{"text": NaN}',
        ):  # nothing Postgres can't hold
            refused = await client.post(
                path, content=raw.encode(), headers={"Content-Type": "application/json"}
            )
            assert refused.status_code == 422 and "invalid request: body" in refused.json()["detail"], raw
        no_key = await client.post(path, json={"text": "hi"})
        assert no_key.status_code == 503 and "MISTRAL_API_KEY" in no_key.json()["detail"]
        view = (await client.get(f"/conversations/{conversation_id}")).json()
        assert view["turn_count"] == 0 and view["order"] == []


async def test_two_replicas_serialise_the_turns_of_one_conversation(
    database_url: str, nats_url: str, topology: Topology, nats_client: NatsClient
) -> None:
    """Two agent processes behind a load balancer, one conversation, two messages at once: each turn
    sees the other's result (a slow model makes the turns overlap if nothing serialises them)."""
    settings = offline_settings(
        database_url=database_url,
        nats_url=nats_url,
        nats_namespace=topology.namespace,
        chat_offline={"simulated_latency_ms": 200},
    )
    async with running(create_app(settings)) as one, running(create_app(settings)) as two:
        conversation_id = (await one.post("/conversations")).json()["conversation_id"]
        first, second = await asyncio.gather(
            say(one, conversation_id, "two egg mcmuffins"),
            say(two, conversation_id, "and a large coffee"),
        )
        assert sorted([first["turn_index"], second["turn_index"]]) == [0, 1]
        view = (await two.get(f"/conversations/{conversation_id}")).json()
    assert view["turn_count"] == 2
    assert sorted(line["item_id"] for line in view["order"]) == ["coffee", "egg-mcmuffin"]
