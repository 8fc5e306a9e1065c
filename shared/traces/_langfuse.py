"""The Langfuse SDKs' attributes (``langfuse`` 3.x to 5.x, OpenTelemetry-based, scope ``langfuse-sdk``).

An observation is a span with ``langfuse.observation.type``: ``generation`` (a model call, with
``…model.name``, ``…usage_details`` and ``…input`` / ``…output`` as JSON text), ``embedding``,
``tool`` (input: the arguments, output: the result), ``agent``, ``chain``, ``retriever``, ``span``,
``event``, ``evaluator``, ``guardrail``. An input or output is read as messages when it is a list of
``{role, content}`` (or ``{"messages": [...]}``), else as one message holding its text. A span that
also carries ``gen_ai.*`` (a third-party instrumentation under Langfuse) is read by the GenAI reader.

Trace-level values live on any span: ``session.id``, ``user.id``, ``langfuse.trace.tags`` (a list),
``langfuse.trace.metadata.KEY`` (JSON text, as v5 writes every value) or ``langfuse.trace.metadata``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from pydantic import JsonValue

from shared.contracts.span_messages import Span
from shared.traces._attributes import Attrs, integer, maybe_json, text
from shared.traces._messages import message_from_dict
from shared.traces._reading import SpanReading, duration_ms, error_text
from yardstick.api.trace_record import Convention, LlmCall, Message, TokenUsage, ToolCall

OBSERVATION_TYPE = "langfuse.observation.type"
INPUT = "langfuse.observation.input"
OUTPUT = "langfuse.observation.output"
MODEL = "langfuse.observation.model.name"
USAGE = "langfuse.observation.usage_details"
LEVEL = "langfuse.observation.level"
STATUS_MESSAGE = "langfuse.observation.status_message"
TRACE_TAGS = "langfuse.trace.tags"
TRACE_METADATA = "langfuse.trace.metadata"
_KINDS = {
    "generation": "llm",
    "embedding": "embedding",
    "tool": "tool",
    "agent": "agent",
    "chain": "chain",
    "retriever": "retriever",
}


def read_langfuse(span: Span) -> SpanReading | None:
    """The span's Langfuse reading, or None when it is no Langfuse observation (or carries GenAI)."""
    attrs = span.attributes
    observation = text(attrs, OBSERVATION_TYPE)
    if observation is None or any(key.startswith("gen_ai.") for key in attrs):
        return None
    reading = SpanReading(
        kind=_KINDS.get(observation, "other"),
        conversation_id=text(attrs, "session.id"),
        user_id=text(attrs, "user.id"),
        conventions={Convention.LANGFUSE},
    )
    error = error_text(span) or (
        text(attrs, STATUS_MESSAGE) or "error" if attrs.get(LEVEL) == "ERROR" else None
    )
    if observation == "generation":
        reading.llm = LlmCall(
            span_id=span.span_id,
            operation="chat",
            model=text(attrs, MODEL),
            input_messages=_messages(attrs.get(INPUT), "user"),
            output_messages=_messages(attrs.get(OUTPUT), "assistant"),
            usage=_usage(attrs.get(USAGE)),
            latency_ms=duration_ms(span),
            error=error,
        )
    elif observation == "tool":
        reading.tool = ToolCall(
            name=span.name,
            arguments=maybe_json(attrs.get(INPUT)),
            result=maybe_json(attrs.get(OUTPUT)),
            span_id=span.span_id,
            error=error,
        )
    else:
        reading.input_messages = _messages(attrs.get(INPUT), "user")
        reading.output_messages = _messages(attrs.get(OUTPUT), "assistant")
    return reading


def trace_tags(spans: Iterable[Span]) -> list[str]:
    """``langfuse.trace.tags`` of every span, once each, in order."""
    found: dict[str, None] = {}
    for span in spans:
        value = maybe_json(span.attributes.get(TRACE_TAGS))
        for tag in value if isinstance(value, list) else [value] if isinstance(value, str) else []:
            if isinstance(tag, str) and tag:
                found.setdefault(tag)
    return list(found)


def trace_metadata(spans: Iterable[Span]) -> dict[str, JsonValue]:
    """``langfuse.trace.metadata`` (an object) and ``langfuse.trace.metadata.KEY`` of every span
    (values decoded from their JSON text), the first span's value winning."""
    out: dict[str, JsonValue] = {}
    prefix = TRACE_METADATA + "."
    for span in spans:
        for key, value in span.attributes.items():
            if key == TRACE_METADATA:
                whole = _decoded(value)
                for name, item in whole.items() if isinstance(whole, dict) else ():
                    out.setdefault(name, item)
            elif key.startswith(prefix):
                out.setdefault(key.removeprefix(prefix), _decoded(value))
    return out


def _decoded(value: JsonValue) -> JsonValue:
    if not isinstance(value, str):
        return value
    try:
        decoded: JsonValue = json.loads(value)
    except ValueError:
        return value
    return decoded


def _messages(value: JsonValue, role: str) -> list[Message]:
    if value is None or value == "":
        return []
    parsed = maybe_json(value)
    if isinstance(parsed, dict) and isinstance(parsed.get("messages"), list):
        parsed = parsed["messages"]
    if isinstance(parsed, list) and parsed and all(isinstance(m, dict) and "role" in m for m in parsed):
        return [message_from_dict(m) for m in parsed if isinstance(m, dict)]
    if isinstance(parsed, dict) and isinstance(parsed.get("role"), str):
        return [message_from_dict(parsed)]
    content = parsed if isinstance(parsed, str) else json.dumps(parsed, ensure_ascii=False, sort_keys=True)
    return [Message(role=role, content=content)]


def _usage(value: JsonValue) -> TokenUsage:
    usage = maybe_json(value)
    if not isinstance(usage, dict):
        return TokenUsage()
    attrs: Attrs = usage
    input_tokens = integer(attrs, "input", "input_tokens", "prompt_tokens")
    output_tokens = integer(attrs, "output", "output_tokens", "completion_tokens")
    total = integer(attrs, "total", "total_tokens")
    if total is None and input_tokens is not None and output_tokens is not None:
        total = input_tokens + output_tokens
    return TokenUsage(input_tokens=input_tokens, output_tokens=output_tokens, total_tokens=total)
