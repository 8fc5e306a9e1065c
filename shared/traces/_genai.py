"""The OpenTelemetry GenAI semantic conventions, in their three forms:

- attributes (v1.37+): ``gen_ai.input.messages`` / ``gen_ai.output.messages`` /
  ``gen_ai.system_instructions`` as JSON with typed parts; ``execute_tool`` spans with
  ``gen_ai.tool.call.arguments`` / ``.result``;
- events, on the span or sent as OTLP logs (folded into the span, ``_log_records``):
  ``gen_ai.client.inference.operation.details`` holding the attribute form's keys (the span's own
  attributes win); the older ``gen_ai.system.message``, ``gen_ai.user.message``,
  ``gen_ai.assistant.message``, ``gen_ai.tool.message`` and ``gen_ai.choice`` (its ``message``, with
  ``tool_calls`` inside it or beside it), or ``gen_ai.content.prompt`` / ``gen_ai.content.completion``
  holding ``gen_ai.prompt`` / ``gen_ai.completion``;
- OpenLLMetry's flattened ``gen_ai.prompt.N.role|content`` / ``gen_ai.completion.N.…``.
"""

from __future__ import annotations

from pydantic import JsonValue

from shared.contracts.span_messages import Span, SpanEvent
from shared.traces._attributes import Attrs, indexed, integer, maybe_json, text
from shared.traces._messages import Unreadable, message_from_dict, messages_from_json
from shared.traces._reading import SpanReading, duration_ms, error_text
from yardstick.api.trace_record import Convention, LlmCall, Message, TokenUsage, ToolCall

LLM_OPERATIONS = {"chat", "text_completion", "generate_content", "completion"}
DETAILS_EVENT = "gen_ai.client.inference.operation.details"
_EVENT_ROLES = {
    "gen_ai.system.message": "system",
    "gen_ai.user.message": "user",
    "gen_ai.assistant.message": "assistant",
    "gen_ai.tool.message": "tool",
}


def read_genai(span: Span) -> SpanReading | None:
    """The span's GenAI reading, or None when it carries no ``gen_ai.*`` attribute or event."""
    attrs = _with_details(span)
    has_events = any(e.name.startswith("gen_ai.") for e in span.events)
    if not has_events and not any(key.startswith("gen_ai.") for key in attrs):
        return None
    reading = SpanReading(
        conversation_id=text(attrs, "gen_ai.conversation.id", "session.id"),
        user_id=text(attrs, "user.id", "enduser.id"),
    )
    operation = text(attrs, "gen_ai.operation.name") or ""
    inputs = _messages(attrs, "gen_ai.input.messages", reading, system=True)
    outputs = _messages(attrs, "gen_ai.output.messages", reading)
    reading.conventions.add(Convention.GEN_AI)
    if not inputs and not outputs and has_events:
        inputs, outputs = _event_messages(span.events, reading)
        reading.conventions.add(Convention.GEN_AI_EVENTS)
    flattened = "gen_ai.prompt.0.role" in attrs or "gen_ai.completion.0.role" in attrs
    if not inputs and not outputs and flattened:
        inputs = [message_from_dict(m) for m in _openllmetry(attrs, "gen_ai.prompt")]
        outputs = [message_from_dict(m) for m in _openllmetry(attrs, "gen_ai.completion")]
        reading.conventions.add(Convention.OPENLLMETRY)
    if operation == "execute_tool" or (not operation and "gen_ai.tool.name" in attrs):
        reading.kind = "tool"
        reading.tool = ToolCall(
            name=text(attrs, "gen_ai.tool.name") or span.name.removeprefix("execute_tool ").strip(),
            call_id=text(attrs, "gen_ai.tool.call.id"),
            arguments=maybe_json(attrs.get("gen_ai.tool.call.arguments")),
            result=maybe_json(attrs.get("gen_ai.tool.call.result")),
            span_id=span.span_id,
            error=error_text(span),
        )
    elif operation in LLM_OPERATIONS or (
        not operation and (inputs or outputs or "gen_ai.request.model" in attrs)
    ):
        reading.kind = "llm"
        reading.llm = LlmCall(
            span_id=span.span_id,
            operation=operation or "chat",
            model=text(attrs, "gen_ai.response.model", "gen_ai.request.model"),
            provider=text(attrs, "gen_ai.provider.name", "gen_ai.system"),
            input_messages=inputs,
            output_messages=outputs,
            usage=_usage(attrs),
            latency_ms=duration_ms(span),
            error=error_text(span),
        )
    else:
        reading.kind = {"invoke_agent": "agent", "create_agent": "agent", "embeddings": "embedding"}.get(
            operation, "other"
        )
        reading.input_messages, reading.output_messages = inputs, outputs
    return reading


def _with_details(span: Span) -> Attrs:
    """The span's attributes, completed by its ``…operation.details`` events' (the span's win)."""
    details = [event.attributes for event in span.events if event.name == DETAILS_EVENT]
    if not details:
        return span.attributes
    merged: dict[str, JsonValue] = {}
    for found in details:
        merged.update(found)
    merged.update(span.attributes)
    return merged


def _messages(attrs: Attrs, key: str, reading: SpanReading, *, system: bool = False) -> list[Message]:
    value = attrs.get(key)
    if value is None:
        return []
    try:
        found = messages_from_json(value)
    except Unreadable as exc:
        reading.notes.append(f"{key}: {exc}; kept as text")
        found = [Message(role="unknown", content=str(value))]
    instructions = attrs.get("gen_ai.system_instructions") if system else None
    if instructions is not None:
        parts = maybe_json(instructions)
        content: list[JsonValue] = (
            parts if isinstance(parts, list) else [{"type": "text", "content": str(parts)}]
        )
        found.insert(0, message_from_dict({"role": "system", "parts": content}))
    return found


def _event_messages(events: list[SpanEvent], reading: SpanReading) -> tuple[list[Message], list[Message]]:
    inputs: list[Message] = []
    outputs: list[Message] = []
    for event in events:
        attrs = event.attributes
        if event.name in _EVENT_ROLES:
            body: dict[str, JsonValue] = {
                "role": _EVENT_ROLES[event.name],
                "content": attrs.get("content"),
                "tool_calls": attrs.get("tool_calls"),
                "id": attrs.get("id"),
            }
            inputs.append(message_from_dict(body))
        elif event.name == "gen_ai.choice":
            message = maybe_json(attrs.get("message"))
            body = dict(message) if isinstance(message, dict) else {"content": attrs.get("content")}
            if not body.get("role"):
                body["role"] = "assistant"
            if not body.get("tool_calls") and attrs.get("tool_calls"):  # OpenLLMetry puts them beside
                body["tool_calls"] = attrs.get("tool_calls")
            body["finish_reason"] = attrs.get("finish_reason")
            outputs.append(message_from_dict(body))
        elif event.name in ("gen_ai.content.prompt", "gen_ai.content.completion"):
            key = "gen_ai.prompt" if event.name.endswith("prompt") else "gen_ai.completion"
            target = inputs if key == "gen_ai.prompt" else outputs
            try:
                target.extend(messages_from_json(attrs.get(key)))
            except Unreadable as exc:
                reading.notes.append(f"{event.name}: {exc}")
    return inputs, outputs


def _openllmetry(attrs: Attrs, prefix: str) -> list[dict[str, JsonValue]]:
    out: list[dict[str, JsonValue]] = []
    for fields in indexed(attrs, prefix):
        calls: list[JsonValue] = [
            {"id": c.get("id"), "function": {"name": c.get("name"), "arguments": c.get("arguments")}}
            for c in indexed(fields, "tool_calls")
        ]
        out.append(
            {
                "role": fields.get("role"),
                "content": fields.get("content"),
                "tool_calls": calls,
                "tool_call_id": fields.get("tool_call_id"),
                "finish_reason": fields.get("finish_reason"),
            }
        )
    return out


def _usage(attrs: Attrs) -> TokenUsage:
    input_tokens = integer(attrs, "gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens")
    output_tokens = integer(attrs, "gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens")
    total = integer(attrs, "llm.usage.total_tokens")
    if total is None and input_tokens is not None and output_tokens is not None:
        total = input_tokens + output_tokens
    return TokenUsage(input_tokens=input_tokens, output_tokens=output_tokens, total_tokens=total)
