"""Hand-made ``traffic.spans`` messages: small GenAI traces (an agent span over a chat and a tool)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from shared.contracts.span_messages import ResourceSpans, Span, SpanBatch, SpanStatus, StatusCode

T0 = 1_780_000_000_000_000_000  # Unix nanoseconds


def trace_hex(n: int) -> str:
    return f"{n + 1:032x}"


def span_hex(trace: int, n: int) -> str:
    return f"{trace + 1:08x}{n + 1:08x}"


def trace_spans(
    n: int,
    *,
    model: str = "gpt-test",
    tool: str = "lookup_order",
    error: bool = False,
    conversation: str = "",
    at: datetime | None = None,
) -> list[Span]:
    """Trace ``n``: root ``invoke_agent`` (span 0) over ``chat`` (1), ``execute_tool`` (2), ``chat`` (3),
    started ``at`` (default: a fixed time, 10 ms apart per ``n``)."""
    tid = trace_hex(n)
    start = T0 + n * 10_000_000 if at is None else int(at.timestamp() * 1e9)

    def span(i: int, name: str, attrs: dict[str, object], parent: int | None = 0) -> Span:
        return Span.model_validate(
            {
                "trace_id": tid,
                "span_id": span_hex(n, i),
                "parent_span_id": None if parent is None else span_hex(n, parent),
                "name": name,
                "start_unix_nano": start + i * 1_000_000,
                "end_unix_nano": start + (i + 1) * 1_000_000 if parent is not None else start + 5_000_000,
                "attributes": attrs,
                "status": SpanStatus(code=StatusCode.ERROR, message="boom")
                if error and i == 2
                else SpanStatus(),
            }
        )

    user = [{"role": "user", "parts": [{"type": "text", "content": f"Where is order {n}?"}]}]
    ask = [
        {
            "role": "assistant",
            "parts": [{"type": "tool_call", "id": f"c{n}", "name": tool, "arguments": {"order": n}}],
        }
    ]
    answer = [{"role": "assistant", "parts": [{"type": "text", "content": f"Order {n} ships today."}]}]
    root_attrs: dict[str, object] = {"gen_ai.operation.name": "invoke_agent"}
    if conversation:
        root_attrs["gen_ai.conversation.id"] = conversation
    return [
        span(0, "invoke_agent support", root_attrs, parent=None),
        span(
            1,
            f"chat {model}",
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.request.model": model,
                "gen_ai.input.messages": json.dumps(user),
                "gen_ai.output.messages": json.dumps(ask),
                "gen_ai.usage.input_tokens": 20,
                "gen_ai.usage.output_tokens": 5,
            },
        ),
        span(
            2,
            f"execute_tool {tool}",
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": tool,
                "gen_ai.tool.call.id": f"c{n}",
                "gen_ai.tool.call.result": json.dumps({"status": "shipped"}),
            },
        ),
        span(
            3,
            f"chat {model}",
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.request.model": model,
                "gen_ai.input.messages": json.dumps(user),
                "gen_ai.output.messages": json.dumps(answer),
                "gen_ai.usage.input_tokens": 30,
                "gen_ai.usage.output_tokens": 7,
            },
        ),
    ]


def batch(spans: list[Span], *, project: str = "default", service: str = "support-bot") -> SpanBatch:
    return SpanBatch(
        project_id=project,
        received_at=datetime.now(UTC),
        groups=[ResourceSpans(resource={"service.name": service}, scope_name="test", spans=spans)],
    )
