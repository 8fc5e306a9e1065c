"""GenAI semantic conventions into one record: the attribute form (v1.37+), the older span-event
form, and OpenLLMetry's flattened form; spans from the real SDK."""

from __future__ import annotations

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.trace import Status, StatusCode

from tests.shared.traces.sdk_spans import as_json, record_of
from yardstick.api.trace_record import Convention, Message, TokenUsage, ToolCall, ToolCallRequest

pytestmark = pytest.mark.unit

SYSTEM = [{"type": "text", "content": "You take drive-thru orders."}]
USER = [{"role": "user", "parts": [{"type": "text", "content": "Two burgers please"}]}]
ASKS_TOOL = [
    {
        "role": "assistant",
        "parts": [
            {
                "type": "tool_call",
                "id": "call_1",
                "name": "add_item",
                "arguments": {"item": "burger", "qty": 2},
            }
        ],
        "finish_reason": "tool_calls",
    }
]
ANSWER = [{"role": "assistant", "parts": [{"type": "text", "content": "Two burgers. Anything else?"}]}]


def agent_turn(provider: TracerProvider) -> None:
    tracer = provider.get_tracer("my.agent")
    with tracer.start_as_current_span("invoke_agent drive-thru") as agent:
        agent.set_attributes({"gen_ai.operation.name": "invoke_agent", "gen_ai.conversation.id": "conv-42"})
        with tracer.start_as_current_span("chat mistral-small") as chat:
            chat.set_attributes(
                {
                    "gen_ai.operation.name": "chat",
                    "gen_ai.provider.name": "mistral_ai",
                    "gen_ai.request.model": "mistral-small",
                    "gen_ai.response.model": "mistral-small-2506",
                    "gen_ai.system_instructions": as_json(SYSTEM),
                    "gen_ai.input.messages": as_json(USER),
                    "gen_ai.output.messages": as_json(ASKS_TOOL),
                    "gen_ai.usage.input_tokens": 120,
                    "gen_ai.usage.output_tokens": 15,
                }
            )
        with tracer.start_as_current_span("execute_tool add_item") as tool:
            tool.set_attributes(
                {
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": "add_item",
                    "gen_ai.tool.call.id": "call_1",
                    "gen_ai.tool.call.result": '{"ok": true, "items": 2}',
                }
            )
        with tracer.start_as_current_span("chat mistral-small") as chat:
            history = (
                USER
                + ASKS_TOOL
                + [
                    {
                        "role": "tool",
                        "parts": [{"type": "tool_call_response", "id": "call_1", "response": "ok"}],
                    }
                ]
            )
            chat.set_attributes(
                {
                    "gen_ai.operation.name": "chat",
                    "gen_ai.provider.name": "mistral_ai",
                    "gen_ai.request.model": "mistral-small",
                    "gen_ai.input.messages": as_json(history),
                    "gen_ai.output.messages": as_json(ANSWER),
                    "gen_ai.usage.input_tokens": 160,
                    "gen_ai.usage.output_tokens": 9,
                }
            )


def test_the_attribute_form_gives_messages_trajectory_tokens_and_tree() -> None:
    record = record_of(agent_turn)
    assert record.application == "shop-assistant"
    assert record.conversation_id == "conv-42"
    assert (record.model, record.provider) == ("mistral-small", "mistral_ai")
    assert record.models == ["mistral-small-2506", "mistral-small"]
    assert record.input_messages == [
        Message(role="system", content="You take drive-thru orders."),
        Message(role="user", content="Two burgers please"),
    ]
    assert record.output_messages == [Message(role="assistant", content="Two burgers. Anything else?")]
    assert record.tool_calls == [
        ToolCall(
            name="add_item",
            call_id="call_1",
            arguments={"item": "burger", "qty": 2},  # from the model's request: the span had none
            result={"ok": True, "items": 2},
            span_id=record.tool_calls[0].span_id,
        )
    ]
    assert record.llm_calls[0].output_messages[0].tool_calls == [
        ToolCallRequest(id="call_1", name="add_item", arguments={"item": "burger", "qty": 2})
    ]
    assert record.usage == TokenUsage(input_tokens=280, output_tokens=24, total_tokens=304)
    assert record.conventions == [Convention.GEN_AI]
    assert record.errors == [] and record.notes == []
    [root] = record.roots
    assert (root.name, root.kind) == ("invoke_agent drive-thru", "agent")
    assert [child.kind for child in root.children] == ["llm", "tool", "llm"]
    assert record.latency_ms >= root.children[-1].duration_ms
    assert record.span_count == 4


def test_the_older_span_event_form_and_a_trajectory_from_the_model_messages() -> None:
    def build(provider: TracerProvider) -> None:
        tracer = provider.get_tracer("legacy.instrumentation")
        with tracer.start_as_current_span("chat gpt-4o") as chat:
            chat.set_attributes(
                {
                    "gen_ai.system": "openai",
                    "gen_ai.request.model": "gpt-4o",
                    "gen_ai.usage.prompt_tokens": 30,
                }
            )
            chat.add_event("gen_ai.system.message", {"gen_ai.system": "openai", "content": "Be brief."})
            chat.add_event("gen_ai.user.message", {"content": "Weather in Paris?"})
            chat.add_event(
                "gen_ai.choice",
                {
                    "index": 0,
                    "finish_reason": "tool_calls",
                    "message": as_json(
                        {
                            "role": "assistant",
                            "tool_calls": [
                                {
                                    "id": "c9",
                                    "type": "function",
                                    "function": {"name": "weather", "arguments": '{"city": "Paris"}'},
                                }
                            ],
                        }
                    ),
                },
            )

    record = record_of(build)
    assert record.conventions == [Convention.GEN_AI, Convention.GEN_AI_EVENTS]
    assert (record.model, record.provider) == ("gpt-4o", "openai")
    assert [(m.role, m.content) for m in record.input_messages] == [
        ("system", "Be brief."),
        ("user", "Weather in Paris?"),
    ]
    assert record.output_messages[0].finish_reason == "tool_calls"
    assert record.tool_calls == [ToolCall(name="weather", call_id="c9", arguments={"city": "Paris"})]
    assert record.usage.input_tokens == 30 and record.usage.output_tokens is None


def test_openllmetry_flattened_prompts_and_completions() -> None:
    def build(provider: TracerProvider) -> None:
        with provider.get_tracer("opentelemetry.instrumentation.langchain").start_as_current_span(
            "ChatOpenAI.chat"
        ) as s:
            s.set_attributes(
                {
                    "gen_ai.system": "openai",
                    "gen_ai.request.model": "gpt-4o-mini",
                    "gen_ai.prompt.0.role": "user",
                    "gen_ai.prompt.0.content": "hi",
                    "gen_ai.completion.0.role": "assistant",
                    "gen_ai.completion.0.content": "hello!",
                    "gen_ai.completion.0.finish_reason": "stop",
                    "llm.usage.total_tokens": 12,
                }
            )

    record = record_of(build)
    assert Convention.OPENLLMETRY in record.conventions
    assert record.input_messages == [Message(role="user", content="hi")]
    assert record.output_messages == [Message(role="assistant", content="hello!", finish_reason="stop")]
    assert record.usage.total_tokens == 12


def test_errors_unreadable_content_and_unknown_spans_are_kept_and_said() -> None:
    def build(provider: TracerProvider) -> None:
        tracer = provider.get_tracer("app")
        with tracer.start_as_current_span("handle request"):
            with tracer.start_as_current_span("chat broken") as chat:
                chat.set_attributes({"gen_ai.operation.name": "chat", "gen_ai.input.messages": "not json"})
                chat.record_exception(TimeoutError("provider timed out"))
                chat.set_status(Status(StatusCode.ERROR, "timeout"))
            with tracer.start_as_current_span("db query"):
                pass

    record = record_of(build)
    assert [(e.span_name, e.type, e.message) for e in record.errors] == [
        ("chat broken", "TimeoutError", "provider timed out")
    ]
    assert record.llm_calls[0].error == "TimeoutError: provider timed out"
    assert record.input_messages == [Message(role="unknown", content="not json")]
    assert record.notes == ["gen_ai.input.messages: expected a JSON list of messages, got str; kept as text"]
    assert [c.kind for c in record.roots[0].children] == ["llm", "other"]
    assert record.roots[0].children[0].error is True
