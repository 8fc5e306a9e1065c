"""``agent.invoke`` answered over the real NATS server by the FastStream subscriber."""

from __future__ import annotations

import asyncio
import json

import pytest
from nats.aio.client import Client as NatsClient

from services.agent.http_app import create_app
from yardstick.api.agent_messages import AgentInvokeRequest, AgentInvokeResponse, ModelConfig
from yardstick.api.topology import Topology

from .conftest import offline_settings

pytestmark = [pytest.mark.integration, pytest.mark.timeout(60)]


async def test_agent_invoke_is_answered_over_nats(
    database_url: str, nats_url: str, topology: Topology, nats_client: NatsClient
) -> None:
    settings = offline_settings(
        database_url=database_url, nats_url=nats_url, nats_namespace=topology.namespace
    )
    app = create_app(settings)
    async with app.router.lifespan_context(app):

        async def ask(request: AgentInvokeRequest) -> AgentInvokeResponse:
            payload = request.model_dump_json().encode()
            reply = await nats_client.request(topology.agent_invoke, payload, timeout=10)
            return AgentInvokeResponse.model_validate_json(reply.data)

        order, ambiguous = await asyncio.gather(
            ask(AgentInvokeRequest(customer_utterance="Two Sausage Biscuits with egg and a Sausage Burrito")),
            ask(
                AgentInvokeRequest(
                    customer_utterance="I'll have a McMuffin",
                    model=ModelConfig(offline={"ambiguous_policy": "guess_first"}),
                )
            ),
        )
        assert order.ok and order.model == "offline:ask"
        assert [(line.item_id, line.quantity) for line in order.order_items] == [
            ("sausage-biscuit-with-egg", 2),
            ("sausage-burrito", 1),
        ]
        assert order.latency_ms > 0 and order.item_count == 3
        assert ambiguous.ok and [line.item_id for line in ambiguous.order_items] == ["egg-mcmuffin"]

        bad = await nats_client.request(
            topology.agent_invoke, json.dumps({"customer_utterance": ""}).encode(), timeout=10
        )
        rejected = AgentInvokeResponse.model_validate_json(bad.data)
        assert not rejected.ok and rejected.error is not None
        assert rejected.error.startswith("invalid agent.invoke request")
