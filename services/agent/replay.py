"""``replay_conversation``: a scripted conversation played turn by turn in ONE thread (in-memory
checkpointer), the core of ``agent.converse``.

Each turn sends only the new customer message to the same thread, as the chat API does, so the
order, the read-back and the finalization carry over between turns. Turns after the order was
finalized are not played. A failing turn fails the whole replay (``ok=False``): a partial
conversation would be scored as if the agent had said nothing.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from typing import cast

from langchain_core.messages import AnyMessage, HumanMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import MemorySaver

from services.agent.chat_models import ModelUnavailableError
from services.agent.checkpointer import state_serializer
from services.agent.domain import Order
from services.agent.graph import AgentContext, DriveThruState, apply_add_results, compile_graph, initial_state
from services.agent.prompt import BUILTIN_VERSION, PromptUnavailable
from services.agent.runtime import AgentRuntime
from services.agent.tools import TOOLS
from services.agent.transcript import (
    from_trajectory,
    order_lines,
    reply_text,
    to_trajectory,
    tool_call_names,
    usage_of,
)
from shared.contracts.agent_conversation import (
    AgentConversationRequest,
    AgentConversationResponse,
    ConversationTurnResult,
)
from yardstick.api.prompts import PromptRef

logger = logging.getLogger(__name__)


async def replay_conversation(
    request: AgentConversationRequest, runtime: AgentRuntime
) -> AgentConversationResponse:
    """Play ``request.turns`` in order on one thread; never raises for agent failures (``ok=False``)."""
    started = time.perf_counter()
    conversation_id = request.conversation_id or uuid.uuid4().hex
    identity = runtime.models.identity(request.model)
    prompt_version = BUILTIN_VERSION
    failed = AgentConversationResponse(
        ok=False, conversation_id=conversation_id, turns_scripted=len(request.turns), model=identity
    )
    try:
        chosen = runtime.models.choose(request.model)
        prompt = await runtime.prompts.get(
            PromptRef.parse(request.prompt) if request.prompt else None, request.project
        )
        prompt_version = prompt.version
        context = AgentContext(model=chosen.model.bind_tools(TOOLS), prompt=prompt)
        turns, state = await _play(request, runtime, context, conversation_id)
    except (ModelUnavailableError, PromptUnavailable, ValueError) as exc:
        return _failed(failed, str(exc), prompt_version, started)
    except TimeoutError:
        limit = runtime.settings.invoke_timeout_s
        return _failed(
            failed, f"a turn did not finish within {limit} s (INVOKE_TIMEOUT_S)", prompt_version, started
        )
    except Exception as exc:  # any agent failure is reported to the caller, never a hung request
        logger.exception("conversation replay failed", extra={"model": identity})
        return _failed(failed, f"{type(exc).__name__}: {exc}", prompt_version, started)
    played = state["messages"][len(from_trajectory(request.messages)) :]
    lines = order_lines(state["current_order"])
    finalized = bool(state.get("finalized", False))
    return AgentConversationResponse(
        conversation_id=conversation_id,
        turns=turns,
        turns_scripted=len(request.turns),
        stopped="finalized_early" if len(turns) < len(request.turns) else "completed",
        order_items=lines,
        tool_calls=tool_call_names(played),
        trajectory=to_trajectory(played),
        response=turns[-1].response if turns else "",
        item_count=sum(line.quantity for line in lines),
        finalized=finalized,
        latency_ms=_elapsed_ms(started),
        usage=usage_of(played),
        model=identity,
        prompt_version=prompt_version,
    )


async def _play(
    request: AgentConversationRequest, runtime: AgentRuntime, context: AgentContext, conversation_id: str
) -> tuple[list[ConversationTurnResult], DriveThruState]:
    prior = from_trajectory(request.messages)
    order = apply_add_results(Order(), runtime.menu, [m for m in prior if isinstance(m, ToolMessage)])
    graph = compile_graph(MemorySaver(serde=state_serializer()))
    config = RunnableConfig(
        configurable={"thread_id": f"replay-{conversation_id}"},
        recursion_limit=runtime.settings.recursion_limit,
    )
    state = initial_state(runtime.menu, prior, order)
    results: list[ConversationTurnResult] = []
    for index, utterance in enumerate(request.turns):
        if state.get("finalized"):
            break
        before = len(state["messages"])
        turn_input = (
            cast(DriveThruState, {"messages": [HumanMessage(content=utterance)]})
            if index
            else initial_state(runtime.menu, [*prior, HumanMessage(content=utterance)], order)
        )
        turn_started = time.perf_counter()
        state = cast(
            DriveThruState,
            await asyncio.wait_for(
                graph.ainvoke(turn_input, config=config, context=context),
                timeout=runtime.settings.invoke_timeout_s,
            ),
        )
        new: list[AnyMessage] = state["messages"][before:]
        results.append(
            ConversationTurnResult(
                turn_index=index,
                customer_utterance=utterance,
                response=reply_text(new),
                order_items=order_lines(state["current_order"]),
                tool_calls=tool_call_names(new),
                trajectory=to_trajectory(new),
                finalized=bool(state.get("finalized", False)),
                latency_ms=_elapsed_ms(turn_started),
            )
        )
    return results, state


def _elapsed_ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)


def _failed(
    base: AgentConversationResponse, error: str, prompt_version: str, started: float
) -> AgentConversationResponse:
    return base.model_copy(
        update={"error": error, "prompt_version": prompt_version, "latency_ms": _elapsed_ms(started)}
    )
