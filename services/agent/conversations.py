"""Multi-turn conversations: one LangGraph thread per conversation, state in the checkpointer.

A turn that fails (model error, timeout) is rolled back, so the conversation's messages and order
are exactly as before the turn. Every turn, failed or not, is reported as an OpenTelemetry trace
(:mod:`services.agent.turn_spans`) through the process's :class:`AgentTelemetry`.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from dataclasses import dataclass
from typing import Any, cast

from langchain_core.messages import AnyMessage, HumanMessage, RemoveMessage
from langchain_core.runnables import RunnableConfig
from langgraph.graph.state import CompiledStateGraph
from pydantic import BaseModel, Field

from services.agent.chat_models import ModelUnavailableError
from services.agent.conversation_lock import ConversationLocks
from services.agent.graph import AgentContext, DriveThruState, initial_state
from services.agent.runtime import AgentRuntime
from services.agent.telemetry import AgentTelemetry
from services.agent.tools import TOOLS
from services.agent.transcript import order_lines, reply_text, to_trajectory, tool_call_names
from services.agent.turn_spans import turn_trace
from shared.http.problem_details import ProblemError
from yardstick.api.agent_messages import OrderLine, TrajectoryMessage

logger = logging.getLogger(__name__)

Graph = CompiledStateGraph[DriveThruState, AgentContext, DriveThruState, DriveThruState]


class ConversationNotFoundError(ProblemError, LookupError):
    status_code = 404

    def __init__(self, conversation_id: str) -> None:
        super().__init__(
            f"conversation {conversation_id!r} does not exist: create one with POST /conversations"
        )


class ConversationFinalizedError(ProblemError, RuntimeError):
    status_code = 409

    def __init__(self, conversation_id: str) -> None:
        super().__init__(
            f"conversation {conversation_id!r} is finalized: start a new one with POST /conversations"
        )


class AgentTurnFailedError(ProblemError, RuntimeError):
    """The model failed during a turn; the conversation was left as it was before the turn."""

    status_code = 502


class AgentTurnTimeoutError(AgentTurnFailedError):
    status_code = 504


class TurnResult(BaseModel, frozen=True):
    """One chat turn's outcome (also the chat API's response body)."""

    conversation_id: str
    turn_index: int = Field(description="0 for the conversation's first turn")
    reply: str = Field(description="What the agent said")
    order: list[OrderLine] = Field(description="The order after this turn")
    finalized: bool
    tool_calls: list[str] = Field(description="Names of the tools the agent called this turn")
    model: str = Field(description="Model identity, e.g. offline:ask or mistral:<name>")
    prompt_version: str


@dataclass(frozen=True)
class ConversationView:
    conversation_id: str
    messages: list[TrajectoryMessage]
    order: list[OrderLine]
    finalized: bool
    turn_count: int


def _config(conversation_id: str, recursion_limit: int) -> RunnableConfig:
    thread = {"thread_id": f"chat-{conversation_id}"}
    return RunnableConfig(configurable=thread, recursion_limit=recursion_limit)


class ConversationService:
    def __init__(
        self, graph: Graph, runtime: AgentRuntime, telemetry: AgentTelemetry, locks: ConversationLocks
    ) -> None:
        self._graph = graph
        self._runtime = runtime
        self._telemetry = telemetry
        self._locks = locks

    def _cfg(self, conversation_id: str) -> RunnableConfig:
        return _config(conversation_id, self._runtime.settings.recursion_limit)

    async def create(self) -> str:
        conversation_id = uuid.uuid4().hex
        await self._graph.aupdate_state(
            self._cfg(conversation_id), initial_state(self._runtime.menu, []), as_node="update_order"
        )
        return conversation_id

    async def _values(self, conversation_id: str) -> dict[str, Any]:
        snapshot = await self._graph.aget_state(self._cfg(conversation_id))
        if not snapshot.values:
            raise ConversationNotFoundError(conversation_id)
        return dict(snapshot.values)

    async def ensure_exists(self, conversation_id: str) -> None:
        await self._values(conversation_id)

    async def view(self, conversation_id: str) -> ConversationView:
        values = await self._values(conversation_id)
        messages: list[AnyMessage] = values.get("messages", [])
        return ConversationView(
            conversation_id=conversation_id,
            messages=to_trajectory(messages),
            order=order_lines(values["current_order"]),
            finalized=bool(values.get("finalized", False)),
            turn_count=sum(isinstance(m, HumanMessage) for m in messages),
        )

    async def send(self, conversation_id: str, text: str) -> TurnResult:
        async with self._locks.hold(conversation_id):
            return await self._turn(conversation_id, text)

    async def _turn(self, conversation_id: str, text: str) -> TurnResult:
        before = await self._values(conversation_id)
        if before.get("finalized"):
            raise ConversationFinalizedError(conversation_id)
        config = self._runtime.models.default_chat_config()
        chosen = self._runtime.models.choose(config)  # ModelUnavailableError propagates (503)
        prompt = await self._runtime.prompts.get(project=self._runtime.settings.project)
        context = AgentContext(model=chosen.model.bind_tools(TOOLS), prompt=prompt)
        previous: list[AnyMessage] = before.get("messages", [])
        turn_index = sum(isinstance(m, HumanMessage) for m in previous)
        telemetry = self._telemetry
        with turn_trace(
            telemetry.tracer, telemetry.service_name, conversation_id, turn_index, text, chosen.identity
        ) as traced:
            run_config = self._cfg(conversation_id)
            run_config["callbacks"] = [traced.callbacks]
            state = await self._run(conversation_id, text, context, run_config, before)
            new_messages = state["messages"][len(previous) :]
            result = TurnResult(
                conversation_id=conversation_id,
                turn_index=turn_index,
                reply=reply_text(new_messages),
                order=order_lines(state["current_order"]),
                finalized=bool(state.get("finalized", False)),
                tool_calls=tool_call_names(new_messages),
                model=chosen.identity,
                prompt_version=prompt.version,
            )
            traced.answered(result.reply, finalized=result.finalized, prompt_version=prompt.version)
        return result

    async def _run(
        self,
        conversation_id: str,
        text: str,
        context: AgentContext,
        config: RunnableConfig,
        before: dict[str, Any],
    ) -> dict[str, Any]:
        """Run the graph for one turn; on failure roll the conversation back and raise a domain error."""
        try:
            state = await asyncio.wait_for(
                self._graph.ainvoke(
                    cast(DriveThruState, {"messages": [HumanMessage(content=text)]}), config, context=context
                ),
                timeout=self._runtime.settings.turn_timeout_s,
            )
        except Exception as exc:
            await self._roll_back(conversation_id, before)
            if isinstance(exc, ModelUnavailableError):
                raise
            if isinstance(exc, TimeoutError):
                limit = self._runtime.settings.turn_timeout_s
                raise AgentTurnTimeoutError(f"the agent did not answer within {limit} s; try again") from exc
            logger.exception("chat turn failed", extra={"conversation_id": conversation_id})
            reason = f"{type(exc).__name__}: {exc}"
            raise AgentTurnFailedError(f"the agent's model failed ({reason}); try again") from exc
        return dict(state)

    async def _roll_back(self, conversation_id: str, before: dict[str, Any]) -> None:
        """Remove the failed turn's messages and restore the order, as one new checkpoint."""
        try:
            await self._restore(conversation_id, before)
        except Exception:
            logger.exception("rolling back a failed turn failed", extra={"conversation_id": conversation_id})

    async def _restore(self, conversation_id: str, before: dict[str, Any]) -> None:
        after = await self._values(conversation_id)
        known = {m.id for m in before.get("messages", [])}
        added = [m for m in after.get("messages", []) if m.id not in known and m.id is not None]
        update: dict[str, Any] = {
            "messages": [RemoveMessage(id=str(m.id)) for m in added],
            "current_order": before["current_order"],
            "finalized": bool(before.get("finalized", False)),
        }
        await self._graph.aupdate_state(self._cfg(conversation_id), update, as_node="update_order")
