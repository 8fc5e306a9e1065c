"""Messages in the shapes the conventions write them, into :class:`Message`.

- GenAI v1.37+: ``[{"role", "parts": [{"type": "text", "content"}, {"type": "tool_call", "id",
  "name", "arguments"}, {"type": "tool_call_response", "id", "response"}], "finish_reason"}]``;
- the older ``{"role", "content", "tool_calls": [{"id", "function": {"name", "arguments"}}]}``
  (OpenAI's shape, used by the GenAI span events and ``gen_ai.prompt``);
- OpenInference's flattened ``message.role`` / ``message.content`` / ``message.contents.N.…`` /
  ``message.tool_calls.N.tool_call.function.name`` …
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import JsonValue

from shared.traces._attributes import indexed, maybe_json
from yardstick.api.trace_record import Message, ToolCallRequest


class Unreadable(ValueError):
    """A message value that is not in any known shape (the trace keeps a note)."""


def messages_from_json(value: JsonValue) -> list[Message]:
    """A JSON list of messages (text or parsed) in the GenAI or the OpenAI shape."""
    parsed = maybe_json(value)
    if isinstance(parsed, dict):
        parsed = [parsed]
    if not isinstance(parsed, list):
        raise Unreadable(f"expected a JSON list of messages, got {type(parsed).__name__}")
    return [message_from_dict(item) for item in parsed if isinstance(item, dict)]


def message_from_dict(item: Mapping[str, JsonValue], role: str | None = None) -> Message:
    """One message in the GenAI (parts) or the OpenAI (content, tool_calls) shape."""
    raw_role = item.get("role")
    role = raw_role if isinstance(raw_role, str) else role or "unknown"
    finish = item.get("finish_reason")
    finish_reason = finish if isinstance(finish, str) else None
    parts = item.get("parts")
    if isinstance(parts, list):
        return _from_parts(role, [p for p in parts if isinstance(p, dict)], finish_reason)
    raw_id = item.get("tool_call_id", item.get("id"))
    return Message(
        role=role,
        content=_content_text(item.get("content")),
        tool_calls=_openai_tool_calls(item.get("tool_calls")),
        tool_call_id=str(raw_id) if role == "tool" and raw_id is not None else None,
        finish_reason=finish_reason,
    )


def _from_parts(role: str, parts: list[dict[str, JsonValue]], finish_reason: str | None) -> Message:
    texts: list[str] = []
    calls: list[ToolCallRequest] = []
    answered: str | None = None
    for part in parts:
        kind = part.get("type")
        if kind == "text" or (kind is None and "content" in part):
            texts.append(_content_text(part.get("content")))
        elif kind == "tool_call":
            calls.append(
                ToolCallRequest(
                    id=_opt_str(part.get("id")),
                    name=str(part.get("name") or "unknown"),
                    arguments=maybe_json(part.get("arguments")),
                )
            )
        elif kind == "tool_call_response":
            answered = _opt_str(part.get("id"))
            texts.append(_content_text(part.get("response", part.get("result"))))
    return Message(
        role=role,
        content="\n".join(t for t in texts if t),
        tool_calls=calls,
        tool_call_id=answered,
        finish_reason=finish_reason,
    )


def _openai_tool_calls(value: JsonValue) -> list[ToolCallRequest]:
    value = maybe_json(value)
    if not isinstance(value, list):
        return []
    calls: list[ToolCallRequest] = []
    for call in value:
        if not isinstance(call, dict):
            continue
        function = call.get("function")
        source = function if isinstance(function, dict) else call
        calls.append(
            ToolCallRequest(
                id=_opt_str(call.get("id")),
                name=str(source.get("name") or "unknown"),
                arguments=maybe_json(source.get("arguments")),
            )
        )
    return calls


def openinference_messages(attrs: Mapping[str, JsonValue], prefix: str) -> list[Message]:
    """``llm.input_messages.N.message.*`` (or ``llm.output_messages``) into messages."""
    out: list[Message] = []
    for fields in indexed(attrs, prefix):
        contents = [
            str(part.get("message_content.text", ""))
            for part in indexed(fields, "message.contents")
            if part.get("message_content.type", "text") == "text"
        ]
        calls = [
            ToolCallRequest(
                id=_opt_str(call.get("tool_call.id")),
                name=str(call.get("tool_call.function.name") or "unknown"),
                arguments=maybe_json(call.get("tool_call.function.arguments")),
            )
            for call in indexed(fields, "message.tool_calls")
        ]
        content = fields.get("message.content")
        out.append(
            Message(
                role=str(fields.get("message.role") or "unknown"),
                content=_content_text(content) if content is not None else "\n".join(contents),
                tool_calls=calls,
                tool_call_id=_opt_str(fields.get("message.tool_call_id")),
            )
        )
    return out


def _content_text(value: JsonValue) -> str:
    """Text of a content value: a string, or a list of text parts (OpenAI's content parts)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        texts = [
            str(part.get("text", part.get("content", "")))
            for part in value
            if isinstance(part, dict) and part.get("type", "text") == "text"
        ]
        return "\n".join(t for t in texts if t)
    if isinstance(value, dict):
        return str(value.get("text", value.get("content", "")))
    return str(value)


def _opt_str(value: JsonValue) -> str | None:
    return None if value is None or value == "" else str(value)
