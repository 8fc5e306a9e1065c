"""Instrumentations that send message content as OTLP *logs* give whole traces: the real OpenAI
instrumentation (``opentelemetry-instrumentation-openai-v2`` 2.4b0 with ``opentelemetry-util-genai``
1.1b0, always on the current conventions) in ``EVENT_ONLY`` mode
(``gen_ai.client.inference.operation.details``), and OpenLLMetry's OpenAI instrumentation without
legacy attributes (``gen_ai.system.message``, ``gen_ai.user.message``, ``gen_ai.choice`` …), around the
real ``openai`` client and a fake OpenAI server on 127.0.0.1, exporting spans to ``/v1/traces`` and
logs to ``/v1/logs`` of the real ingest with the SDK's own OTLP exporters. What lands in
``traffic.spans`` is assembled as the sampler does and read into one record per turn."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from nats.aio.client import Client as NatsClient
from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.instrumentation import _semconv
from opentelemetry.instrumentation.openai import OpenAIInstrumentor as OpenLLMetryInstrumentor
from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import SimpleLogRecordProcessor
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

from shared.contracts.span_messages import LOG_RECORD_ATTRIBUTE
from shared.traces import TraceAssembler
from tests.services.ingest.harness import Ingest, stored_batches
from tests.shared.traces.fake_openai import MODEL, fake_openai, tool_turn  # noqa: F401  (a fixture)
from yardstick.api.topology import Topology
from yardstick.api.trace_record import Convention, Message, TraceRecord

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]

Instrument = Callable[[TracerProvider, LoggerProvider], Any]


@pytest.fixture
def conventions(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    """The GenAI conventions opt-in is read once per process: reset around the test."""
    monkeypatch.setattr(_semconv._OpenTelemetrySemanticConventionStability, "_initialized", False)
    yield monkeypatch
    _semconv._OpenTelemetrySemanticConventionStability._initialized = False


def _openai_v2(tracer_provider: TracerProvider, logger_provider: LoggerProvider) -> Any:
    instrumentor = OpenAIInstrumentor()  # type: ignore[no-untyped-call]
    instrumentor.instrument(tracer_provider=tracer_provider, logger_provider=logger_provider)
    return instrumentor


def _openllmetry(tracer_provider: TracerProvider, logger_provider: LoggerProvider) -> Any:
    instrumentor = OpenLLMetryInstrumentor(
        use_attributes=False
    )  # traceloop-sdk's use_legacy_attributes=False
    instrumentor.instrument(tracer_provider=tracer_provider, logger_provider=logger_provider)
    return instrumentor


def _turn(base_url: str, ingest: Ingest, key: str, instrument: Instrument) -> None:
    """One agent turn (a tool call, then the answer), exported as the application would export it."""
    headers = {"Authorization": f"Bearer {key}"}
    resource = Resource.create({"service.name": "burger-bot"})
    tracer_provider = TracerProvider(resource=resource)
    tracer_provider.add_span_processor(
        SimpleSpanProcessor(OTLPSpanExporter(endpoint=ingest.traces_url, headers=headers))
    )
    logger_provider = LoggerProvider(resource=resource)
    logger_provider.add_log_record_processor(
        SimpleLogRecordProcessor(OTLPLogExporter(endpoint=ingest.logs_url, headers=headers))
    )
    instrumentor = instrument(tracer_provider, logger_provider)
    try:
        tool_turn(base_url, tracer_provider)
    finally:
        instrumentor.uninstrument()
        tracer_provider.shutdown()
        logger_provider.shutdown()


async def _record(nats_client: NatsClient, topology: Topology) -> tuple[TraceRecord, int]:
    """The one trace in the stream, as the sampler reads it, and how many log records it carried."""
    assembler = TraceAssembler()
    carriers = 0
    for batch in await stored_batches(nats_client, topology):
        assembler.add(batch, now=0.0)
        carriers += sum(span.attributes.get(LOG_RECORD_ATTRIBUTE) is True for _, span in batch.spans())
    [trace] = assembler.ready(now=60.0)
    return trace.record(), carriers


async def _check_turn(nats_client: NatsClient, topology: Topology, min_events: int) -> TraceRecord:
    record, carriers = await _record(nats_client, topology)
    assert carriers >= min_events
    assert record.application == "burger-bot" and record.model == MODEL
    assert record.input_messages[:2] == [
        Message(role="system", content="You sell burgers."),
        Message(role="user", content="How much is a burger?"),
    ]
    assert [m.content for m in record.output_messages] == ["A burger is 5 dollars."]
    [tool] = record.tool_calls
    assert (tool.name, tool.call_id, tool.arguments, tool.result) == (
        "get_price",
        "call_1",
        {"item": "burger"},
        "5 dollars",
    )
    assert (record.usage.input_tokens, record.usage.output_tokens) == (40, 12)
    assert record.span_count == 3  # the turn and its two chats: the events folded in, not spans
    assert [child.kind for child in record.roots[0].children] == ["llm", "llm"]
    assert record.notes == []
    return record


async def test_openai_v2_event_only_on_the_current_conventions(
    ingest: Ingest,
    key: str,
    fake_openai: str,  # noqa: F811
    conventions: pytest.MonkeyPatch,
    nats_client: NatsClient,
    topology: Topology,
) -> None:
    conventions.setenv("OTEL_SEMCONV_STABILITY_OPT_IN", "gen_ai_latest_experimental")
    conventions.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "EVENT_ONLY")
    await asyncio.to_thread(_turn, fake_openai, ingest, key, _openai_v2)
    batches = await stored_batches(nats_client, topology)
    names = {span.name for batch in batches for _, span in batch.spans()}
    assert "gen_ai.client.inference.operation.details" in names  # one event per model call
    chats = [s for b in batches for _, s in b.spans() if s.name.startswith("chat")]
    assert chats and not any("gen_ai.input.messages" in s.attributes for s in chats)  # only in the events
    record = await _check_turn(nats_client, topology, min_events=2)
    assert Convention.GEN_AI in record.conventions


async def test_openllmetry_without_legacy_attributes(
    ingest: Ingest,
    key: str,
    fake_openai: str,  # noqa: F811
    nats_client: NatsClient,
    topology: Topology,
) -> None:
    await asyncio.to_thread(_turn, fake_openai, ingest, key, _openllmetry)
    batches = await stored_batches(nats_client, topology)
    chats = [
        s
        for b in batches
        for _, s in b.spans()
        if s.parent_span_id and "gen_ai.request.model" in s.attributes
    ]
    assert chats and not any(
        k.startswith(("gen_ai.prompt.", "gen_ai.input")) for s in chats for k in s.attributes
    )
    record = await _check_turn(nats_client, topology, min_events=7)
    assert Convention.GEN_AI_EVENTS in record.conventions
