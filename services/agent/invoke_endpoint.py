"""The ``agent.invoke`` and ``agent.converse`` NATS request/reply endpoints (queue group, so replicas
share the load)."""

from __future__ import annotations

from typing import Any

from faststream.nats import NatsBroker
from pydantic import ValidationError

from services.agent.invoke import invoke_agent
from services.agent.replay import replay_conversation
from services.agent.runtime import AgentRuntime
from shared.contracts.agent_conversation import AgentConversationRequest, AgentConversationResponse
from yardstick.api.agent_messages import AgentInvokeRequest, AgentInvokeResponse
from yardstick.api.topology import AGENT_QUEUE


def register_invoke_handler(broker: NatsBroker, runtime: AgentRuntime) -> None:
    """Answer every ``agent.invoke`` request, malformed ones included (``ok=False``), so a caller
    never waits for a reply that will not come."""

    @broker.subscriber(
        runtime.settings.topology.agent_invoke,
        queue=AGENT_QUEUE,
        max_workers=runtime.settings.invoke_max_workers,
    )
    async def handle_agent_invoke(body: dict[str, Any]) -> AgentInvokeResponse:
        try:
            request = AgentInvokeRequest.model_validate(body)
        except ValidationError as exc:
            return AgentInvokeResponse(ok=False, error=f"invalid agent.invoke request: {exc}")
        return await invoke_agent(request, runtime)


def register_conversation_handler(broker: NatsBroker, runtime: AgentRuntime) -> None:
    """Answer every ``agent.converse`` request (a scripted conversation replayed in one thread),
    malformed ones included (``ok=False``)."""

    @broker.subscriber(
        runtime.settings.topology.agent_converse,
        queue=AGENT_QUEUE,
        max_workers=runtime.settings.invoke_max_workers,
    )
    async def handle_agent_converse(body: dict[str, Any]) -> AgentConversationResponse:
        try:
            request = AgentConversationRequest.model_validate(body)
        except ValidationError as exc:
            return AgentConversationResponse(ok=False, error=f"invalid agent.converse request: {exc}")
        return await replay_conversation(request, runtime)
