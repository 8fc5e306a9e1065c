"""The drive-thru graph: orchestrator → tools → update_order → orchestrator …, ending on
a reply or right after ``finalize_order``.

The chat model and the system prompt are per-invocation *context* (``AgentContext``), so one
compiled graph serves any model configuration.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, cast

from langchain_core.language_models import LanguageModelInput
from langchain_core.messages import AIMessage, AnyMessage, BaseMessage, SystemMessage, ToolMessage
from langchain_core.runnables import Runnable
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.prebuilt import ToolNode
from langgraph.runtime import Runtime
from langgraph.types import RetryPolicy

from services.agent.domain import CategoryName, Item, Menu, Modifier, Order, Size
from services.agent.prompt import SystemPrompt, render_system_prompt
from services.agent.tools import ADD_ITEM_TO_ORDER, FINALIZE_ORDER, TOOLS

ORCHESTRATOR_RETRY = RetryPolicy(max_attempts=3, initial_interval=0.5, backoff_factor=2.0)


class DriveThruState(MessagesState):
    menu: Menu
    current_order: Order
    finalized: bool


@dataclass(frozen=True)
class AgentContext:
    """What one invocation runs with: the tool-bound chat model and the system prompt."""

    model: Runnable[LanguageModelInput, BaseMessage]
    prompt: SystemPrompt


async def orchestrator(state: DriveThruState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    system = render_system_prompt(runtime.context.prompt.template, state["menu"], state["current_order"])
    response = await runtime.context.model.ainvoke([SystemMessage(content=system), *state["messages"]])
    return {"messages": [response]}


def should_continue(state: DriveThruState) -> Literal["tools", "__end__"]:
    last = state["messages"][-1]
    return "tools" if isinstance(last, AIMessage) and last.tool_calls else "__end__"


def latest_tool_step(messages: list[AnyMessage]) -> list[ToolMessage]:
    """The tool results answering the most recent AI message (the step that just ran)."""
    step: list[ToolMessage] = []
    for message in reversed(messages):
        if isinstance(message, ToolMessage):
            step.append(message)
        else:
            break
    return list(reversed(step))


def tool_result(message: ToolMessage) -> dict[str, Any]:
    content = message.content
    try:
        value = json.loads(content) if isinstance(content, str) else content
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def apply_add_results(order: Order, menu: Menu, results: list[ToolMessage]) -> Order:
    """``order`` plus every successful ``add_item_to_order`` result in ``results`` (in order)."""
    for message in results:
        if message.name != ADD_ITEM_TO_ORDER:
            continue
        result = tool_result(message)
        menu_item = menu.item_by_id(str(result.get("item_id", "")))
        if not result.get("added") or menu_item is None:
            continue
        order = order + Item(
            item_id=menu_item.item_id,
            name=menu_item.name,
            category_name=CategoryName(result.get("category_name", menu_item.category_name)),
            default_size=menu_item.default_size,
            size=Size(result["size"]) if result.get("size") in set(Size) else None,
            quantity=int(result["quantity"]),
            modifiers=[Modifier(**m) for m in result.get("modifiers", [])],
        )
    return order


def update_order(state: DriveThruState) -> dict[str, Any]:
    """Apply ONLY the tool step that just ran. (The original sketch rescans the whole history and
    would re-add every earlier item on each loop.)"""
    step = latest_tool_step(state["messages"])
    update: dict[str, Any] = {
        "current_order": apply_add_results(state["current_order"], state["menu"], step),
    }
    if any(m.name == FINALIZE_ORDER and tool_result(m).get("finalized") for m in step):
        update["finalized"] = True
    return update


def should_end_after_update(state: DriveThruState) -> Literal["orchestrator", "__end__"]:
    step = latest_tool_step(state["messages"])
    finalized = any(m.name == FINALIZE_ORDER and tool_result(m).get("finalized") for m in step)
    return "__end__" if finalized else "orchestrator"


def graph_builder() -> StateGraph[DriveThruState, AgentContext, DriveThruState, DriveThruState]:
    builder = StateGraph(DriveThruState, context_schema=AgentContext)
    builder.add_node("orchestrator", orchestrator, retry_policy=ORCHESTRATOR_RETRY)
    builder.add_node("tools", ToolNode(TOOLS))
    builder.add_node("update_order", update_order)
    builder.add_edge(START, "orchestrator")
    builder.add_conditional_edges("orchestrator", should_continue, {"tools": "tools", END: END})
    builder.add_edge("tools", "update_order")
    builder.add_conditional_edges(
        "update_order", should_end_after_update, {"orchestrator": "orchestrator", END: END}
    )
    return builder


def compile_graph(
    checkpointer: BaseCheckpointSaver[Any] | None,
) -> CompiledStateGraph[DriveThruState, AgentContext, DriveThruState, DriveThruState]:
    return graph_builder().compile(checkpointer=checkpointer)


def initial_state(menu: Menu, messages: Sequence[BaseMessage], order: Order | None = None) -> DriveThruState:
    return DriveThruState(
        messages=cast(list[AnyMessage], list(messages)),
        menu=menu,
        current_order=order or Order(),
        finalized=False,
    )
