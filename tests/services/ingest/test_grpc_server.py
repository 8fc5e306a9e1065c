"""OTLP over gRPC beside HTTP, checked with the real ``opentelemetry-exporter-otlp-proto-grpc``
exporters: spans and GenAI events stored once (a resend deduplicated), the same keys (``authorization``
metadata, Bearer) and limits, and refusals as the status codes exporters act on: permanent ones are
not retried, and the detail says what to do."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import grpc
import pytest
from nats.aio.client import Client as NatsClient
from opentelemetry._logs import LogRecord
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.exporter.otlp.proto.grpc._log_exporter import OTLPLogExporter
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import LogRecordExportResult
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SpanExportResult

from services.ingest.grpc_server import TRACE_SERVICE
from shared.contracts.roles import Role
from shared.contracts.span_messages import LOG_RECORD_ATTRIBUTE
from shared.contracts.topology import Topology
from shared.db.api_keys import create_key_sync
from tests.services.ingest.harness import (
    SECRET,
    Ingest,
    chat_trace,
    ingest_settings,
    make_spans,
    make_spans_and_logs,
    serve_ingest,
    span_ids,
    stored_spans,
)

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]


@pytest.fixture
def ingest(database_url: str, nats_url: str, topology: Topology, nats_client: NatsClient) -> Iterator[Ingest]:
    settings = ingest_settings(database_url, nats_url, topology, max_body_bytes=64 * 1024)
    with serve_ingest(settings) as served:
        yield served


def _metadata(key: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {key}"),)


async def test_the_grpc_exporters_store_spans_and_events_once(
    ingest: Ingest, key: str, nats_client: NatsClient, topology: Topology
) -> None:
    def turn(tracer_provider: TracerProvider, logger_provider: LoggerProvider) -> None:
        chat_trace(tracer_provider)
        with tracer_provider.get_tracer("test").start_as_current_span("chat"):
            logger_provider.get_logger("genai").emit(
                LogRecord(event_name="gen_ai.user.message", body={"content": "A burger, please."})
            )

    spans, logs = make_spans_and_logs(turn)
    span_exporter = OTLPSpanExporter(endpoint=ingest.grpc_address, insecure=True, headers=_metadata(key))
    log_exporter = OTLPLogExporter(endpoint=ingest.grpc_address, insecure=True, headers=_metadata(key))
    assert await asyncio.to_thread(span_exporter.export, spans) is SpanExportResult.SUCCESS
    assert await asyncio.to_thread(span_exporter.export, spans) is SpanExportResult.SUCCESS  # a retry
    assert await asyncio.to_thread(log_exporter.export, logs) is LogRecordExportResult.SUCCESS
    span_exporter.shutdown()
    log_exporter.shutdown()

    stored = await stored_spans(nats_client, topology)
    carriers = [span for span in stored if span.attributes.get(LOG_RECORD_ATTRIBUTE) is True]
    assert sorted(s.span_id for s in stored if s not in carriers) == span_ids(spans)  # once each
    [event] = carriers
    assert event.name == "gen_ai.user.message"
    assert event.events[0].attributes == {"content": "A burger, please."}
    health = await asyncio.to_thread(ingest.health)
    assert health["duplicates"] == 1 and health["spans_accepted"] == 2 * len(spans) + 1


async def test_refusals_are_status_codes_exporters_do_not_retry(
    ingest: Ingest, key: str, database_url: str, nats_client: NatsClient, topology: Topology
) -> None:
    spans = make_spans(chat_trace)
    no_key = OTLPSpanExporter(endpoint=ingest.grpc_address, insecure=True, timeout=20)
    assert await asyncio.to_thread(no_key.export, spans) is SpanExportResult.FAILURE  # at once: no retry
    no_key.shutdown()

    body = encode_spans(spans).SerializeToString()
    viewer = create_key_sync(database_url, SECRET, "dashboards", Role.VIEWER)
    with grpc.insecure_channel(ingest.grpc_address) as channel:
        export = channel.unary_unary(f"/{TRACE_SERVICE}/Export")
        cases = [
            (body, (), grpc.StatusCode.UNAUTHENTICATED, "missing API key"),
            (body, _metadata("ys_not-a-key"), grpc.StatusCode.UNAUTHENTICATED, "invalid, expired or revoked"),
            (body, _metadata(viewer), grpc.StatusCode.PERMISSION_DENIED, "needs the ingest role"),
            (b"\xff\xff not protobuf", _metadata(key), grpc.StatusCode.INVALID_ARGUMENT, "not a protobuf"),
            (b"\x00" * (80 * 1024), _metadata(key), grpc.StatusCode.RESOURCE_EXHAUSTED, "larger than"),
        ]
        for payload, metadata, code, detail in cases:
            with pytest.raises(grpc.RpcError) as refused:
                await asyncio.to_thread(export, payload, metadata=metadata, timeout=10)
            assert refused.value.code() is code, refused.value
            assert detail in str(refused.value.details()), refused.value.details()
    assert await stored_spans(nats_client, topology) == []
    health = await asyncio.to_thread(ingest.health)
    assert health["answers"] == {"401": 3, "403": 1, "400": 1}  # the exporter's one try, then the four
