"""Converting graph results into the contract shapes: order lines (the drive-thru evaluators'
shape), trajectories (the trajectory-scenario message format), tool-call names, reply text and token usage."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from services.agent.domain import Order
from yardstick.api.agent_messages import ModifierLine, OrderLine, TokenUsage, TrajectoryMessage


def order_lines(order: Order) -> list[OrderLine]:
    return [
        OrderLine(
            item_id=item.item_id,
            name=item.name,
            quantity=item.quantity,
            size=(item.size or item.default_size).value,
            modifiers=[ModifierLine(modifier_id=m.modifier_id, name=m.name) for m in item.modifiers],
        )
        for item in order.items
    ]


def text_of(message: BaseMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    parts = [p if isinstance(p, str) else str(p.get("text", "")) for p in content]
    return "".join(parts)


def to_trajectory(messages: Sequence[BaseMessage]) -> list[TrajectoryMessage]:
    out: list[TrajectoryMessage] = []
    for message in messages:
        if isinstance(message, HumanMessage):
            out.append(TrajectoryMessage(type="human", content=text_of(message)))
        elif isinstance(message, AIMessage):
            calls = [{"id": c.get("id"), "name": c["name"], "args": c["args"]} for c in message.tool_calls]
            out.append(TrajectoryMessage(type="ai", content=text_of(message), tool_calls=calls))
        elif isinstance(message, ToolMessage):
            out.append(
                TrajectoryMessage(
                    type="tool",
                    content=text_of(message),
                    tool_call_id=message.tool_call_id,
                    name=message.name,
                )
            )
        elif isinstance(message, SystemMessage):
            out.append(TrajectoryMessage(type="system", content=text_of(message)))
    return out


def from_trajectory(messages: Sequence[TrajectoryMessage]) -> list[BaseMessage]:
    out: list[BaseMessage] = []
    for index, message in enumerate(messages):
        if message.type == "human":
            out.append(HumanMessage(content=message.content))
        elif message.type == "ai":
            calls: list[Any] = [
                {"id": c.get("id") or f"prior_{index}_{n}", "name": c["name"], "args": c.get("args", {})}
                for n, c in enumerate(message.tool_calls)
            ]
            out.append(AIMessage(content=message.content, tool_calls=calls))
        elif message.type == "tool":
            call_id = message.tool_call_id or ""
            out.append(ToolMessage(content=message.content, tool_call_id=call_id, name=message.name))
        else:
            out.append(SystemMessage(content=message.content))
    return out


def tool_call_names(messages: Sequence[BaseMessage]) -> list[str]:
    return [call["name"] for m in messages if isinstance(m, AIMessage) for call in m.tool_calls]


def reply_text(messages: Sequence[BaseMessage]) -> str:
    """The last thing the agent said this turn (the farewell rides on the finalize_order call)."""
    finalized = False
    for message in reversed(messages):
        if isinstance(message, ToolMessage):
            finalized = finalized or message.name == "finalize_order"
        elif isinstance(message, AIMessage) and text_of(message).strip():
            return text_of(message)
        elif isinstance(message, HumanMessage):
            break
    return "Your order has been submitted. Please pull forward to the window." if finalized else ""


def usage_of(messages: Sequence[BaseMessage]) -> TokenUsage | None:
    """Summed token usage when the model reported any (the offline model reports none)."""
    reported = [m.usage_metadata for m in messages if isinstance(m, AIMessage) and m.usage_metadata]
    if not reported:
        return None
    models = [
        str(m.response_metadata.get("model_name") or m.response_metadata.get("model") or "")
        for m in messages
        if isinstance(m, AIMessage) and m.usage_metadata
    ]
    return TokenUsage(
        input_tokens=sum(u.get("input_tokens", 0) for u in reported),
        output_tokens=sum(u.get("output_tokens", 0) for u in reported),
        total_tokens=sum(u.get("total_tokens", 0) for u in reported),
        model=next((m for m in models if m), None),
    )
