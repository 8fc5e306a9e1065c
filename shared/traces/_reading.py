"""What one span says, read by whichever convention it follows: :class:`SpanReading`."""

from __future__ import annotations

from pydantic import BaseModel, Field

from shared.contracts.span_messages import Span, StatusCode
from shared.traces._attributes import text
from yardstick.api.trace_record import Convention, LlmCall, Message, ToolCall, TraceError


class SpanReading(BaseModel):
    kind: str = Field(default="other", description="llm, tool, agent, chain, retriever, embedding, other")
    llm: LlmCall | None = None
    tool: ToolCall | None = None
    input_messages: list[Message] = Field(default_factory=list, description="Of a non-LLM span (agent)")
    output_messages: list[Message] = Field(default_factory=list)
    conversation_id: str | None = None
    user_id: str | None = None
    conventions: set[Convention] = Field(default_factory=set)
    notes: list[str] = Field(default_factory=list)


def duration_ms(span: Span) -> float:
    return max(span.end_unix_nano - span.start_unix_nano, 0) / 1e6


def span_error(span: Span) -> TraceError | None:
    """The span's failure: ERROR status, with the ``exception`` event's type and message if any."""
    if span.status.code is not StatusCode.ERROR:
        return None
    error_type = text(span.attributes, "error.type")
    message = span.status.message
    for event in span.events:
        if event.name == "exception":
            error_type = text(event.attributes, "exception.type") or error_type
            message = text(event.attributes, "exception.message") or message
            break
    return TraceError(span_id=span.span_id, span_name=span.name, type=error_type, message=message)


def error_text(span: Span) -> str | None:
    error = span_error(span)
    if error is None:
        return None
    return ": ".join(part for part in (error.type, error.message) if part) or "error"
