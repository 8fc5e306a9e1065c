"""The Langfuse SDK's own spans (``langfuse`` 5.x, exported to memory here) read into one record:
input and output messages, model, tokens, the tool with its arguments and result, observation types
as span kinds, user, session, tags and metadata."""

from __future__ import annotations

import uuid

import pytest
from langfuse import Langfuse
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from shared.contracts.span_messages import Span
from shared.traces import trace_record
from shared.traces._langfuse import read_langfuse
from tests.shared.traces.langfuse_app import ANSWER, MODEL, QUESTION, answer_question
from tests.shared.traces.sdk_spans import received
from yardstick.api.trace_record import Completeness, Convention, Message

pytestmark = pytest.mark.unit


def test_the_sdks_observations_become_a_whole_record() -> None:
    memory = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "burger-bot"}))
    langfuse = Langfuse(
        public_key=f"pk-lf-{uuid.uuid4().hex}",  # one SDK client per key
        secret_key="sk-unused",
        base_url="http://127.0.0.1:9",
        tracer_provider=provider,
        span_exporter=memory,
    )
    answer_question(langfuse)
    langfuse.flush()
    langfuse.shutdown()
    spans = list(memory.get_finished_spans())
    assert {span.instrumentation_scope.name for span in spans if span.instrumentation_scope} == {
        "langfuse-sdk"
    }

    record = trace_record("default", received(spans), Completeness.ROOT_ENDED)
    assert record.application == "burger-bot"
    assert record.conventions == [Convention.LANGFUSE]
    assert record.input_messages == [
        Message(role="system", content="You sell burgers."),
        Message(role="user", content=QUESTION),
    ]
    assert record.output_messages == [Message(role="assistant", content=ANSWER)]
    assert (
        record.model,
        record.usage.input_tokens,
        record.usage.output_tokens,
        record.usage.total_tokens,
    ) == (
        MODEL,
        21,
        9,
        30,
    )
    assert [(t.name, t.arguments, t.result) for t in record.tool_calls] == [
        ("get_price", {"item": "burger"}, {"price": 5})
    ]
    assert (record.user_id, record.conversation_id) == ("user-7", "conversation-42")
    assert (record.tags, record.metadata) == (["production", "menu"], {"tier": "gold"})
    [root] = record.roots
    assert (root.name, root.kind, [(c.name, c.kind) for c in root.children]) == (
        "answer-question",
        "other",
        [("chat", "llm"), ("get_price", "tool")],
    )
    assert record.notes == []


def _span(attributes: dict[str, object]) -> Span:
    return Span.model_validate(
        {
            "trace_id": "1" * 32,
            "span_id": "2" * 16,
            "name": "observation",
            "start_unix_nano": 0,
            "end_unix_nano": 1_000_000,
            "attributes": attributes,
        }
    )


def test_inputs_that_are_not_messages_are_kept_as_text_and_gen_ai_spans_are_left_to_that_reader() -> None:
    reading = read_langfuse(
        _span(
            {
                "langfuse.observation.type": "agent",
                "langfuse.observation.input": '{"args": ["burger"], "kwargs": {}}',
                "langfuse.observation.output": "done",
            }
        )
    )
    assert reading is not None and reading.kind == "agent"
    assert reading.input_messages == [Message(role="user", content='{"args": ["burger"], "kwargs": {}}')]
    assert reading.output_messages == [Message(role="assistant", content="done")]
    failed = read_langfuse(
        _span(
            {
                "langfuse.observation.type": "generation",
                "langfuse.observation.level": "ERROR",
                "langfuse.observation.status_message": "rate limited",
                "langfuse.observation.usage_details": '{"prompt_tokens": 3, "completion_tokens": 1}',
            }
        )
    )
    assert failed is not None and failed.llm is not None
    assert (failed.llm.error, failed.llm.usage.total_tokens) == ("rate limited", 4)
    assert (
        read_langfuse(_span({"langfuse.observation.type": "generation", "gen_ai.request.model": "m"})) is None
    )
    assert read_langfuse(_span({"gen_ai.request.model": "m"})) is None
