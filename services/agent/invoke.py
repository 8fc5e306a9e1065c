"""``invoke_agent``: one isolated conversation turn (fresh thread, in-memory checkpointer), the core
of the ``agent.invoke`` endpoint and callable in-process (benchmarks, tests)."""

from __future__ import annotations

import asyncio
import logging
import time
import uuid

from langchain_core.messages import HumanMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import MemorySaver

from services.agent.chat_models import ModelUnavailableError
from services.agent.domain import Order
from services.agent.graph import AgentContext, apply_add_results, compile_graph, initial_state
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
from shared.llm import RequestCount, counting
from yardstick.api.agent_messages import AgentInvokeRequest, AgentInvokeResponse
from yardstick.api.prompts import PromptRef

logger = logging.getLogger(__name__)


async def invoke_agent(request: AgentInvokeRequest, runtime: AgentRuntime) -> AgentInvokeResponse:
    """Run the agent on ``request.customer_utterance`` (after any prior ``messages``).

    Never raises for agent failures: they come back as ``ok=False`` with ``error`` set.
    """
    with counting() as calls:
        return await _invoke(request, runtime, calls)


async def _invoke(
    request: AgentInvokeRequest, runtime: AgentRuntime, calls: RequestCount
) -> AgentInvokeResponse:
    started = time.perf_counter()
    identity = runtime.models.identity(request.model)
    prompt_version = BUILTIN_VERSION
    try:
        chosen = runtime.models.choose(request.model)
        prompt = await runtime.prompts.get(
            PromptRef.parse(request.prompt) if request.prompt else None, request.project
        )
        prompt_version = prompt.version
        prior = from_trajectory(request.messages)
        order = apply_add_results(Order(), runtime.menu, [m for m in prior if isinstance(m, ToolMessage)])
        graph = compile_graph(MemorySaver())
        messages = [*prior, HumanMessage(content=request.customer_utterance)]
        context = AgentContext(model=chosen.model.bind_tools(TOOLS), prompt=prompt)
        state = await asyncio.wait_for(
            graph.ainvoke(
                initial_state(runtime.menu, messages, order),
                config=RunnableConfig(
                    configurable={"thread_id": f"invoke-{uuid.uuid4()}"},
                    recursion_limit=runtime.settings.recursion_limit,
                ),
                context=context,
            ),
            timeout=runtime.settings.invoke_timeout_s,
        )
    except (ModelUnavailableError, PromptUnavailable, ValueError) as exc:
        return _failure(str(exc), identity, prompt_version, started, calls)
    except TimeoutError:
        error = f"agent did not finish within {runtime.settings.invoke_timeout_s} s (INVOKE_TIMEOUT_S)"
        return _failure(error, identity, prompt_version, started, calls)
    except Exception as exc:  # any agent failure is reported to the caller, never a hung request
        logger.exception("agent invocation failed", extra={"model": identity})
        return _failure(f"{type(exc).__name__}: {exc}", identity, prompt_version, started, calls)
    messages = state["messages"][len(prior) :]
    lines = order_lines(state["current_order"])
    return AgentInvokeResponse(
        order_items=lines,
        tool_calls=tool_call_names(messages),
        trajectory=to_trajectory(messages),
        response=reply_text(messages),
        item_count=sum(line.quantity for line in lines),
        finalized=bool(state.get("finalized", False)),
        latency_ms=_elapsed_ms(started),
        usage=usage_of(messages),
        **_counted(calls, gave_up=False),
        model=identity,
        prompt_version=prompt_version,
    )


def _elapsed_ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)


def _counted(calls: RequestCount, gave_up: bool) -> dict[str, int | None]:
    """``llm_requests``/``llm_retries`` when requests were counted (None: offline or not counted)."""
    if not calls.requests:
        return {"llm_requests": None, "llm_retries": None}
    return {"llm_requests": calls.requests, "llm_retries": calls.retries(gave_up)}


def _failure(
    error: str, model: str, prompt_version: str, started: float, calls: RequestCount
) -> AgentInvokeResponse:
    return AgentInvokeResponse(
        ok=False,
        error=error,
        model=model,
        prompt_version=prompt_version,
        latency_ms=_elapsed_ms(started),
        **_counted(calls, gave_up=True),
    )
