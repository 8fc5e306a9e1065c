"""GenAI events that came as OTLP logs, folded back into their spans: a chat span whose content is
only in events reads as a whole model call; events whose span never came still give their content,
with a note; the events of the newer ``gen_ai.client.inference.operation.details`` form too."""

from __future__ import annotations

import json

import pytest
from opentelemetry._logs import LogRecord
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk.trace import TracerProvider

from shared.traces import trace_record
from tests.services.ingest.harness import make_spans_and_logs
from tests.shared.traces.sdk_spans import received, received_logs
from yardstick.api.trace_record import Completeness, Convention, Message, ToolCallRequest

pytestmark = pytest.mark.unit


def _chat(tracer_provider: TracerProvider, logger_provider: LoggerProvider) -> None:
    """``invoke_agent`` over one ``chat`` span with no content: the messages are events (logs)."""
    tracer = tracer_provider.get_tracer("test")
    logger = logger_provider.get_logger("test.genai")
    with tracer.start_as_current_span("invoke_agent shop") as root:
        root.set_attribute("gen_ai.operation.name", "invoke_agent")
        with tracer.start_as_current_span("chat gpt-test") as chat:
            chat.set_attributes({"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-test"})
            chat.set_attributes({"gen_ai.usage.input_tokens": 12, "gen_ai.usage.output_tokens": 4})
            logger.emit(LogRecord(event_name="gen_ai.system.message", body={"content": "You sell burgers."}))
            logger.emit(LogRecord(event_name="gen_ai.user.message", body={"content": "A burger, please."}))
            call = {"id": "c1", "type": "function", "function": {"name": "add", "arguments": '{"n": 1}'}}
            logger.emit(  # OpenLLMetry's form: tool_calls beside the message, not in it
                LogRecord(
                    event_name="gen_ai.choice",
                    body={"index": 0, "finish_reason": "tool_calls", "message": {}, "tool_calls": [call]},
                )
            )


def test_events_sent_as_logs_complete_their_chat_span() -> None:
    spans, logs = make_spans_and_logs(_chat)
    pairs = received(spans) + received_logs(logs)
    record = trace_record("default", pairs, Completeness.ROOT_ENDED)
    assert record.input_messages == [
        Message(role="system", content="You sell burgers."),
        Message(role="user", content="A burger, please."),
    ]
    assert record.output_messages == [
        Message(
            role="assistant",
            tool_calls=[ToolCallRequest(id="c1", name="add", arguments={"n": 1})],
            finish_reason="tool_calls",
        )
    ]
    assert record.tool_calls[0].name == "add"
    assert (record.model, record.usage.input_tokens, record.span_count) == ("gpt-test", 12, 2)
    assert Convention.GEN_AI_EVENTS in record.conventions
    assert [child.kind for child in record.roots[0].children] == ["llm"]  # no carrier in the tree
    assert record.notes == []
    assert trace_record("default", list(reversed(pairs)), Completeness.ROOT_ENDED).input_messages == (
        record.input_messages
    )  # whatever order the spans and records arrived in


def test_events_without_their_span_stand_in_for_it_with_a_note() -> None:
    spans, logs = make_spans_and_logs(_chat)
    root = [pair for pair in received(spans) if pair[1].parent_span_id is None]
    record = trace_record("default", root + received_logs(logs), Completeness.QUIET)
    assert [m.content for m in record.input_messages] == ["You sell burgers.", "A burger, please."]
    chat_id = next(
        format(s.context.span_id, "016x") for s in spans if s.name == "chat gpt-test" and s.context
    )
    assert record.notes == [
        f"span {chat_id}: 3 GenAI events (OTLP logs) arrived without their span; read from the events alone"
    ]


def test_the_operation_details_event_carries_the_attribute_form() -> None:
    def details(tracer_provider: TracerProvider, logger_provider: LoggerProvider) -> None:
        with tracer_provider.get_tracer("test").start_as_current_span("chat gpt-test") as chat:
            chat.set_attributes({"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-test"})
            logger_provider.get_logger("genai").emit(
                LogRecord(
                    event_name="gen_ai.client.inference.operation.details",
                    attributes={
                        "gen_ai.request.model": "ignored: the span's own value wins",
                        "gen_ai.input.messages": json.dumps(
                            [{"role": "user", "parts": [{"type": "text", "content": "Hi"}]}]
                        ),
                        "gen_ai.output.messages": json.dumps(
                            [{"role": "assistant", "parts": [{"type": "text", "content": "Hello"}]}]
                        ),
                    },
                )
            )

    spans, logs = make_spans_and_logs(details)
    record = trace_record("default", received(spans) + received_logs(logs), Completeness.ROOT_ENDED)
    assert record.input_messages == [Message(role="user", content="Hi")]
    assert record.output_messages == [Message(role="assistant", content="Hello")]
    assert record.model == "gpt-test"
