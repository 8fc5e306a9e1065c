"""A :class:`~shared.traces.TraceRecord` in the shape evaluators and dataset items read.

- ``input``: ``messages`` (the first model call's input, ``{role, content}``), ``query`` (the
  last user message's text, what the judges quote) and ``previous_response`` (the assistant's text
  just before that user message, None in a conversation's first turn: what
  ``finalize_after_confirmation`` reads);
- ``output``: ``response`` (the last assistant text), ``messages`` (the output messages),
  ``tool_calls`` (``{name, arguments, result, error}`` in order: ``tool_called`` and
  ``tool_sequence`` read their names), ``trajectory`` (message dicts ``{type: human|ai|tool, content,
  tool_calls: [{id, name, args}], tool_call_id, name}``, what the trajectory evaluators and
  ``tool_call_protocol`` read), ``latency_ms`` (``latency_budget``), ``usage``, ``model``, ``error``;
- ``metadata``: where the trace came from (trace id, application, conversation, model, provider).

One function per side, used by the sampler (scoring) and the coordinator ("add to dataset"), so a
trace scored online and the same trace in a dataset look alike to an evaluator.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import JsonValue

from yardstick.api.trace_record import Message, ToolCall, TraceRecord


def _text(message: Message) -> dict[str, Any]:
    return {"role": message.role, "content": message.content}


def evaluation_input(record: TraceRecord) -> dict[str, Any]:
    users = [i for i, m in enumerate(record.input_messages) if m.role == "user" and m.content]
    before = record.input_messages[: users[-1]] if users else []
    replies = [m.content for m in before if m.role == "assistant" and m.content]
    return {
        "messages": [_text(m) for m in record.input_messages],
        "query": record.input_messages[users[-1]].content if users else "",
        "previous_response": replies[-1] if replies else None,
    }


def _args(arguments: JsonValue) -> JsonValue:
    return arguments if isinstance(arguments, dict) else ({} if arguments is None else {"input": arguments})


def _result_text(result: JsonValue) -> str:
    if isinstance(result, str):
        return result
    return json.dumps(result, sort_keys=True, default=str)


def _trajectory(record: TraceRecord) -> list[dict[str, Any]]:
    kinds = {"user": "human", "assistant": "ai", "tool": "tool", "system": "system"}
    steps: list[dict[str, Any]] = [
        {"type": kinds.get(m.role, m.role), "content": m.content}
        for m in record.input_messages
        if m.role in ("user", "system")
    ]
    for i, call in enumerate(record.tool_calls):
        call_id = call.call_id or f"call_{i}"
        steps.append(
            {
                "type": "ai",
                "content": "",
                "tool_calls": [{"id": call_id, "name": call.name, "args": _args(call.arguments)}],
            }
        )
        steps.append(
            {"type": "tool", "content": _result_text(call.result), "tool_call_id": call_id, "name": call.name}
        )
    response = response_text(record)
    if response:
        steps.append({"type": "ai", "content": response})
    return steps


def response_text(record: TraceRecord) -> str:
    """The last assistant text of the trace's output ('' when it has none)."""
    texts = [m.content for m in record.output_messages if m.content and m.role != "tool"]
    return texts[-1] if texts else ""


def _tool(call: ToolCall) -> dict[str, Any]:
    return {"name": call.name, "arguments": call.arguments, "result": call.result, "error": call.error}


def evaluation_output(record: TraceRecord) -> dict[str, Any]:
    return {
        "response": response_text(record),
        "messages": [m.model_dump(mode="json") for m in record.output_messages],
        "tool_calls": [_tool(call) for call in record.tool_calls],
        "trajectory": _trajectory(record),
        "latency_ms": record.latency_ms,
        "usage": record.usage.model_dump(mode="json"),
        "model": record.model,
        "error": bool(record.errors),
    }


def evaluation_metadata(record: TraceRecord) -> dict[str, Any]:
    return {
        "source": "trace",
        "trace_id": record.trace_id,
        "application": record.application,
        "conversation_id": record.conversation_id,
        "model": record.model,
        "provider": record.provider,
        "completeness": record.completeness.value,
    }
