"""OpenInference (Arize Phoenix's instrumentors): ``openinference.span.kind``, ``llm.*``,
``input.value`` / ``output.value``, ``llm.input_messages.N.message.*``, ``tool.*``."""

from __future__ import annotations

from pydantic import JsonValue

from shared.contracts.span_messages import Span
from shared.traces._attributes import integer, maybe_json, text
from shared.traces._messages import openinference_messages
from shared.traces._reading import SpanReading, duration_ms, error_text
from yardstick.api.trace_record import Convention, LlmCall, Message, TokenUsage, ToolCall

KIND = "openinference.span.kind"


def read_openinference(span: Span) -> SpanReading | None:
    """The span's OpenInference reading, or None when it has no ``openinference.span.kind``."""
    attrs = span.attributes
    kind = (text(attrs, KIND) or "").upper()
    if not kind:
        return None
    reading = SpanReading(
        kind=kind.lower() if kind in ("LLM", "TOOL", "AGENT", "CHAIN", "RETRIEVER", "EMBEDDING") else "other",
        conversation_id=text(attrs, "session.id"),
        user_id=text(attrs, "user.id"),
        conventions={Convention.OPENINFERENCE},
    )
    if kind == "LLM":
        inputs = openinference_messages(attrs, "llm.input_messages")
        outputs = openinference_messages(attrs, "llm.output_messages")
        reading.llm = LlmCall(
            span_id=span.span_id,
            operation="chat",
            model=text(attrs, "llm.model_name"),
            provider=text(attrs, "llm.provider", "llm.system"),
            input_messages=inputs or _value_message(attrs.get("input.value"), "user"),
            output_messages=outputs or _value_message(attrs.get("output.value"), "assistant"),
            usage=TokenUsage(
                input_tokens=integer(attrs, "llm.token_count.prompt"),
                output_tokens=integer(attrs, "llm.token_count.completion"),
                total_tokens=integer(attrs, "llm.token_count.total"),
            ),
            latency_ms=duration_ms(span),
            error=error_text(span),
        )
    elif kind == "TOOL":
        result, answered = _tool_output(maybe_json(attrs.get("output.value")))
        reading.tool = ToolCall(
            name=text(attrs, "tool.name") or span.name,
            call_id=text(attrs, "tool_call.id", "tool.id") or answered,
            arguments=maybe_json(attrs.get("input.value", attrs.get("tool.parameters"))),
            result=result,
            span_id=span.span_id,
            error=error_text(span),
        )
    else:
        reading.input_messages = _value_message(attrs.get("input.value"), "user")
        reading.output_messages = _value_message(attrs.get("output.value"), "assistant")
    return reading


def _tool_output(value: JsonValue) -> tuple[JsonValue, str | None]:
    """A tool's output and the call id it answers: LangChain's instrumentor writes the whole
    ``ToolMessage`` (``{"type": "tool", "data": {"content", "tool_call_id", …}}``)."""
    if (
        isinstance(value, dict)
        and value.get("type") == "tool"
        and isinstance(data := value.get("data"), dict)
    ):
        call_id = data.get("tool_call_id")
        return maybe_json(data.get("content")), call_id if isinstance(call_id, str) else None
    return value, None


def _value_message(value: object, role: str) -> list[Message]:
    """``input.value`` / ``output.value`` (text, or JSON kept as its text) as one message."""
    if value is None or value == "":
        return []
    return [Message(role=role, content=value if isinstance(value, str) else str(value))]
