"""What the traces pages show, built from the stored record: the span tree as a waterfall, each LLM
call's messages as a transcript, the tool calls with their arguments and results."""

from __future__ import annotations

import json

from pydantic import BaseModel, JsonValue

from yardstick.api.trace_record import LlmCall, Message, SpanNode, ToolCall
from yardstick.api.traces import TraceDetail

KINDS = ("llm", "tool", "agent", "chain", "retriever", "embedding", "other")


class SpanRow(BaseModel):
    """One span as a row of the waterfall: its depth, and where its bar starts and how wide it is
    (percent of the trace's duration)."""

    span_id: str
    name: str
    kind: str
    depth: int
    duration_ms: float
    offset_pct: float
    width_pct: float
    error: bool


class TranscriptEntry(BaseModel):
    role: str
    text: str
    tool_name: str | None = None
    tool_calls: list[dict[str, str]] = []


class CallView(BaseModel):
    span_id: str
    operation: str
    model: str | None
    provider: str | None
    latency_ms: float
    input_tokens: int | None
    output_tokens: int | None
    error: str | None
    transcript: list[TranscriptEntry]


class ToolView(BaseModel):
    name: str
    call_id: str | None
    arguments: str
    result: str
    error: str | None
    ran: bool


class TracePageView(BaseModel):
    spans: list[SpanRow]
    calls: list[CallView]
    tools: list[ToolView]


def _pretty(value: JsonValue) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True)


def span_rows(roots: list[SpanNode], total_ms: float) -> list[SpanRow]:
    """Pre-order, children under their parent (iterative: a deep tree cannot overflow)."""
    if not roots:
        return []
    origin = min(node.start_unix_nano for node in roots)
    scale = total_ms if total_ms > 0 else 1.0
    rows: list[SpanRow] = []
    stack: list[tuple[SpanNode, int]] = [(node, 0) for node in reversed(roots)]
    while stack:
        node, depth = stack.pop()
        offset = (node.start_unix_nano - origin) / 1e6
        rows.append(
            SpanRow(
                span_id=node.span_id,
                name=node.name,
                kind=node.kind if node.kind in KINDS else "other",
                depth=depth,
                duration_ms=node.duration_ms,
                offset_pct=max(0.0, min(100.0, 100 * offset / scale)),
                width_pct=max(0.5, min(100.0, 100 * node.duration_ms / scale)),
                error=node.error,
            )
        )
        stack.extend((child, depth + 1) for child in reversed(node.children))
    return rows


def _entry(message: Message) -> TranscriptEntry:
    """One message under its own generic role (user, assistant, tool, system): a trace may come from
    any application, not only the drive-thru agent."""
    return TranscriptEntry(
        role=message.role,
        text=message.content,
        tool_name=message.tool_call_id if message.role == "tool" else None,
        tool_calls=[
            {"name": call.name, "args": json.dumps(call.arguments, ensure_ascii=False, sort_keys=True)}
            for call in message.tool_calls
        ],
    )


def _call(call: LlmCall) -> CallView:
    return CallView(
        span_id=call.span_id,
        operation=call.operation,
        model=call.model,
        provider=call.provider,
        latency_ms=call.latency_ms,
        input_tokens=call.usage.input_tokens,
        output_tokens=call.usage.output_tokens,
        error=call.error,
        transcript=[_entry(m) for m in [*call.input_messages, *call.output_messages]],
    )


def _tool(call: ToolCall) -> ToolView:
    return ToolView(
        name=call.name,
        call_id=call.call_id,
        arguments=_pretty(call.arguments),
        result=_pretty(call.result),
        error=call.error,
        ran=call.span_id is not None,
    )


def trace_page_view(detail: TraceDetail) -> TracePageView:
    record = detail.record
    return TracePageView(
        spans=span_rows(record.roots, record.latency_ms),
        calls=[_call(call) for call in record.llm_calls],
        tools=[_tool(call) for call in record.tool_calls],
    )
