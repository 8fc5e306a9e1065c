"""OpenInference spans (``llm.*``, ``input.value``, ``tool.*``) into one record; a trace without
its root is kept and says so. Spans from the real SDK."""

from __future__ import annotations

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags

from shared.traces import TraceAssembler
from tests.services.ingest.harness import make_spans
from tests.shared.traces.sdk_spans import received, record_of
from yardstick.api.trace_record import Completeness, Convention, Message, TokenUsage, ToolCall

pytestmark = pytest.mark.unit

USER_PART = "llm.input_messages.1.message.contents.0.message_content"
CALL = "llm.output_messages.0.message.tool_calls.0.tool_call"


def rag_agent(provider: TracerProvider) -> None:
    tracer = provider.get_tracer("openinference.instrumentation.langchain")
    with tracer.start_as_current_span("AgentExecutor") as chain:
        chain.set_attributes(
            {
                "openinference.span.kind": "CHAIN",
                "session.id": "sess-7",
                "user.id": "u-1",
                "input.value": "What does the menu cost?",
                "output.value": "The burger is 5 dollars.",
            }
        )
        with tracer.start_as_current_span("ChatOpenAI") as llm:
            llm.set_attributes(
                {
                    "openinference.span.kind": "LLM",
                    "llm.model_name": "gpt-4o-mini",
                    "llm.provider": "openai",
                    "llm.input_messages.0.message.role": "system",
                    "llm.input_messages.0.message.content": "You answer from the menu.",
                    "llm.input_messages.1.message.role": "user",
                    f"{USER_PART}.type": "text",
                    f"{USER_PART}.text": "What does the menu cost?",
                    "llm.output_messages.0.message.role": "assistant",
                    f"{CALL}.id": "t1",
                    f"{CALL}.function.name": "menu_lookup",
                    f"{CALL}.function.arguments": '{"item": "burger"}',
                    "llm.token_count.prompt": 50,
                    "llm.token_count.completion": 8,
                    "llm.token_count.total": 58,
                }
            )
        with tracer.start_as_current_span("menu_lookup") as tool:
            tool.set_attributes(
                {
                    "openinference.span.kind": "TOOL",
                    "tool.name": "menu_lookup",
                    "input.value": '{"item": "burger"}',
                    "output.value": "5 dollars",
                }
            )
        with tracer.start_as_current_span("ChatOpenAI") as llm:
            llm.set_attributes(
                {
                    "openinference.span.kind": "LLM",
                    "llm.model_name": "gpt-4o-mini",
                    "input.value": "…",
                    "llm.output_messages.0.message.role": "assistant",
                    "llm.output_messages.0.message.content": "The burger is 5 dollars.",
                    "llm.token_count.prompt": 70,
                    "llm.token_count.completion": 9,
                    "llm.token_count.total": 79,
                }
            )


def test_openinference_llm_tool_and_chain_spans() -> None:
    record = record_of(rag_agent, service="menu-rag")
    assert record.application == "menu-rag"
    assert (record.conversation_id, record.user_id) == ("sess-7", "u-1")
    assert (record.model, record.provider) == ("gpt-4o-mini", "openai")
    assert record.input_messages == [
        Message(role="system", content="You answer from the menu."),
        Message(role="user", content="What does the menu cost?"),
    ]
    assert record.output_messages == [Message(role="assistant", content="The burger is 5 dollars.")]
    assert record.tool_calls == [
        ToolCall(
            name="menu_lookup",
            arguments={"item": "burger"},
            result="5 dollars",
            span_id=record.tool_calls[0].span_id,
        )
    ]
    assert record.usage == TokenUsage(input_tokens=120, output_tokens=17, total_tokens=137)
    assert record.conventions == [Convention.OPENINFERENCE]
    assert [c.kind for c in record.roots[0].children] == ["llm", "tool", "llm"]


def test_a_trace_without_its_root_is_kept_partial_after_the_quiet_period() -> None:
    def build(provider: TracerProvider) -> None:
        remote = SpanContext(
            trace_id=0x0AF7651916CD43DD8448EB211C80319C,
            span_id=0x00F067AA0BA902B7,
            is_remote=True,
            trace_flags=TraceFlags(TraceFlags.SAMPLED),
        )
        parent = trace.set_span_in_context(NonRecordingSpan(remote))
        tracer = provider.get_tracer("worker")
        with tracer.start_as_current_span("menu_lookup", context=parent) as tool:
            tool.set_attributes({"openinference.span.kind": "TOOL", "tool.name": "menu_lookup"})

    assembler = TraceAssembler()
    for group, span in received(make_spans(build)):
        assembler.add_span("default", group, span, now=100.0)
    assert assembler.ready(now=125.0) == []  # no root: waits for the quiet period (30 s)
    [partial] = assembler.ready(now=130.0)
    assert partial.completeness is Completeness.QUIET
    record = partial.record()
    assert record.trace_id == "0af7651916cd43dd8448eb211c80319c"
    assert record.tool_calls[0].name == "menu_lookup"
    assert record.notes[0] == (
        f"span {record.roots[0].span_id} (menu_lookup): its parent 00f067aa0ba902b7 is not in the trace"
    )
    assert record.notes[1].startswith("no input and no output could be read: none of the 1 spans")
