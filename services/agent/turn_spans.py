"""One chat turn as an OpenTelemetry trace, in the GenAI semantic conventions (v1.37+ attribute form):

- the root span ``invoke_agent <application>`` (``gen_ai.operation.name=invoke_agent``) carries
  ``gen_ai.conversation.id``, the model and provider, the customer's utterance and the reply, and
  the turn's place in its conversation; a failed turn ends it with an ERROR status;
- under it, one ``chat <model>`` span per model call (``gen_ai.request.model``, ``gen_ai.provider.name``,
  ``gen_ai.system_instructions``, ``gen_ai.input.messages`` / ``gen_ai.output.messages`` with typed
  parts, ``gen_ai.usage.*`` when the model reports usage) and one ``execute_tool <tool>`` span per
  tool call (``gen_ai.tool.name``, ``gen_ai.tool.call.id|arguments|result``).

The child spans are made by :class:`TurnSpans`, a LangChain callback handler handed to the graph's
run: it sees every model call and tool run with its real timing, whatever node makes it. The model
is reported by its identity (``offline:ask``, ``mistral:<name>``), the name offline experiments
target, so the drift check can compare the application's traces with their baseline.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, LLMResult
from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode, Tracer

from services.agent.transcript import text_of

ROLES = {"human": "user", "ai": "assistant", "tool": "tool", "system": "system"}


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def genai_message(message: BaseMessage) -> dict[str, Any]:
    """A LangChain message in the GenAI shape ``{role, parts: [text | tool_call | tool_call_response]}``."""
    role = ROLES.get(message.type, message.type)
    text = text_of(message)
    if isinstance(message, ToolMessage):
        return {
            "role": role,
            "parts": [{"type": "tool_call_response", "id": message.tool_call_id, "response": text}],
        }
    parts: list[dict[str, Any]] = [{"type": "text", "content": text}] if text else []
    if isinstance(message, AIMessage):
        parts += [
            {"type": "tool_call", "id": call.get("id"), "name": call["name"], "arguments": call["args"]}
            for call in message.tool_calls
        ]
    return {"role": role, "parts": parts}


def _input_attributes(messages: Sequence[BaseMessage]) -> dict[str, str]:
    system = [{"type": "text", "content": text_of(m)} for m in messages if isinstance(m, SystemMessage)]
    attrs = {
        "gen_ai.input.messages": _json(
            [genai_message(m) for m in messages if not isinstance(m, SystemMessage)]
        )
    }
    if system:
        attrs["gen_ai.system_instructions"] = _json(system)
    return attrs


def _failed(span: Span, error: BaseException) -> None:
    span.record_exception(error)
    span.set_attribute("error.type", type(error).__qualname__)
    span.set_status(Status(StatusCode.ERROR, f"{type(error).__name__}: {error}"))


class TurnSpans(BaseCallbackHandler):
    """The chat and tool spans of one turn, children of ``parent``; runs inline (no executor hop)."""

    run_inline = True
    ignore_chain = True
    ignore_retriever = True  # (not ignore_agent: LangChain gates the tool events by it)

    def __init__(self, tracer: Tracer, parent: Span, model: str, provider: str) -> None:
        self._tracer = tracer
        self._context = trace.set_span_in_context(parent)
        self._model = model
        self._provider = provider
        self._open: dict[UUID, Span] = {}

    def _start(self, run_id: UUID, name: str, attributes: dict[str, Any]) -> None:
        self._open[run_id] = self._tracer.start_span(
            name,
            context=self._context,
            kind=SpanKind.INTERNAL if name.startswith("execute") else SpanKind.CLIENT,
            attributes=attributes,
        )

    def on_chat_model_start(
        self, serialized: dict[str, Any], messages: list[list[BaseMessage]], *, run_id: UUID, **kwargs: Any
    ) -> None:
        attributes = {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": self._provider,
            "gen_ai.request.model": self._model,
            **_input_attributes(messages[0] if messages else []),
        }
        self._start(run_id, f"chat {self._model}", attributes)

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        span = self._open.pop(run_id, None)
        if span is None:
            return
        generations = [g for batch in response.generations for g in batch if isinstance(g, ChatGeneration)]
        outputs = []
        for generation in generations:
            message = generation.message
            reason = message.response_metadata.get("finish_reason")
            if reason is None and isinstance(message, AIMessage):
                reason = "tool_call" if message.tool_calls else "stop"
            outputs.append({**genai_message(message), "finish_reason": str(reason)})
            usage = message.usage_metadata if isinstance(message, AIMessage) else None
            if usage:
                span.set_attribute("gen_ai.usage.input_tokens", usage.get("input_tokens", 0))
                span.set_attribute("gen_ai.usage.output_tokens", usage.get("output_tokens", 0))
        span.set_attribute("gen_ai.output.messages", _json(outputs))
        span.end()

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        span = self._open.pop(run_id, None)
        if span is not None:
            _failed(span, error)
            span.end()

    def on_tool_start(
        self,
        serialized: dict[str, Any],
        input_str: str,
        *,
        run_id: UUID,
        inputs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        name = str(serialized.get("name") or kwargs.get("name") or "unknown")
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": name,
            "gen_ai.tool.type": "function",
            "gen_ai.tool.call.arguments": _json(inputs) if inputs is not None else input_str,
        }
        if kwargs.get("tool_call_id"):
            attributes["gen_ai.tool.call.id"] = str(kwargs["tool_call_id"])
        self._start(run_id, f"execute_tool {name}", attributes)

    def on_tool_end(self, output: Any, *, run_id: UUID, **kwargs: Any) -> None:
        span = self._open.pop(run_id, None)
        if span is None:
            return
        result = text_of(output) if isinstance(output, BaseMessage) else output
        span.set_attribute("gen_ai.tool.call.result", result if isinstance(result, str) else _json(result))
        if isinstance(output, ToolMessage) and output.status == "error":
            span.set_status(Status(StatusCode.ERROR, str(result)[:500]))
        span.end()

    def on_tool_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        span = self._open.pop(run_id, None)
        if span is not None:
            _failed(span, error)
            span.end()

    def close(self) -> None:
        """End the spans a cancelled run left open (a timeout), as errors."""
        for span in self._open.values():
            span.set_status(Status(StatusCode.ERROR, "the turn ended before this step finished"))
            span.end()
        self._open.clear()


class TurnTrace:
    """The root span of one turn and the handler that hangs its model calls and tool runs under it."""

    def __init__(self, span: Span, spans: TurnSpans) -> None:
        self.span = span
        self.callbacks = spans

    def answered(self, reply: str, *, finalized: bool, prompt_version: str) -> None:
        self.span.set_attribute(
            "gen_ai.output.messages",
            _json(
                [
                    {
                        "role": "assistant",
                        "parts": [{"type": "text", "content": reply}],
                        "finish_reason": "stop",
                    }
                ]
            ),
        )
        self.span.set_attribute("drive_thru.finalized", finalized)
        self.span.set_attribute("drive_thru.prompt_version", prompt_version)


@contextmanager
def turn_trace(
    tracer: Tracer, application: str, conversation_id: str, turn_index: int, utterance: str, model: str
) -> Iterator[TurnTrace]:
    """The turn's root span, ended (with an ERROR status when the block raised) when the block ends."""
    provider = model.split(":", 1)[0]
    attributes: dict[str, Any] = {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": application,
        "gen_ai.conversation.id": conversation_id,
        "gen_ai.provider.name": provider,
        "gen_ai.request.model": model,
        "gen_ai.input.messages": _json([{"role": "user", "parts": [{"type": "text", "content": utterance}]}]),
        "drive_thru.turn_index": turn_index,
    }
    span = tracer.start_span(f"invoke_agent {application}", kind=SpanKind.SERVER, attributes=attributes)
    spans = TurnSpans(tracer, span, model, provider)
    try:
        yield TurnTrace(span, spans)
    except BaseException as exc:
        _failed(span, exc)
        raise
    finally:
        spans.close()
        span.end()
