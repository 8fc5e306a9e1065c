"""A real instrumentation library: ``opentelemetry-instrumentation-openai-v2`` around the ``openai``
client, talking to a fake OpenAI-compatible server on 127.0.0.1 (no provider is reachable here).
One agent turn with a tool call, as the instrumentation reports it, into one record."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from opentelemetry.instrumentation import _semconv
from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor
from opentelemetry.sdk.trace import TracerProvider

from tests.shared.traces.fake_openai import fake_openai, tool_turn  # noqa: F401  (a fixture)
from tests.shared.traces.sdk_spans import record_of
from yardstick.api.trace_record import Convention, Message, ToolCall

pytestmark = pytest.mark.unit


@pytest.fixture
def latest_genai_conventions(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The instrumentation on the current GenAI conventions, with message content on the spans.

    The opt-in is read once per process: reset so that this test's environment is what counts."""
    monkeypatch.setenv("OTEL_SEMCONV_STABILITY_OPT_IN", "gen_ai_latest_experimental")
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "span_only")
    monkeypatch.setattr(_semconv._OpenTelemetrySemanticConventionStability, "_initialized", False)
    yield
    _semconv._OpenTelemetrySemanticConventionStability._initialized = False


def test_an_openai_v2_instrumented_agent_turn(
    fake_openai: str,  # noqa: F811
    latest_genai_conventions: None,
) -> None:
    def app(provider: TracerProvider) -> None:
        instrumentor = OpenAIInstrumentor()  # type: ignore[no-untyped-call]
        instrumentor.instrument(tracer_provider=provider)
        try:
            tool_turn(fake_openai, provider)
        finally:
            instrumentor.uninstrument()

    record = record_of(app, service="burger-bot")
    assert record.application == "burger-bot"
    assert (record.model, record.provider) == ("gpt-fake-2026", "openai")
    assert record.conventions == [Convention.GEN_AI]
    assert record.input_messages == [
        Message(role="system", content="You sell burgers."),
        Message(role="user", content="How much is a burger?"),
    ]
    assert record.output_messages == [
        Message(role="assistant", content="A burger is 5 dollars.", finish_reason="stop")
    ]
    assert record.tool_calls == [
        ToolCall(name="get_price", call_id="call_1", arguments={"item": "burger"}, result="5 dollars")
    ]
    assert (record.usage.input_tokens, record.usage.output_tokens) == (40, 12)
    assert [call.latency_ms > 0 for call in record.llm_calls] == [True, True]
    assert [child.kind for child in record.roots[0].children] == ["llm", "llm"]
