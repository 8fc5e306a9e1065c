"""OTLP over gRPC beside HTTP, checked with the real ``opentelemetry-exporter-otlp-proto-grpc``
exporters: spans and GenAI events stored once (a resend deduplicated), the same keys (``authorization``
metadata, Bearer) and limits, and refusals as the status codes exporters act on: permanent ones are
not retried, a flood past the in-flight bound is RESOURCE_EXHAUSTED with the RetryInfo that makes
OTLP exporters retry it, and the detail says what to do."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any, cast

import grpc
import pytest
from google.rpc.error_details_pb2 import RetryInfo
from nats.aio.client import Client as NatsClient
from opentelemetry._logs import LogRecord
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.exporter.otlp.proto.grpc._log_exporter import OTLPLogExporter
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import LogRecordExportResult
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SpanExportResult
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.ingest.grpc_server import RETRY_INFO_KEY, TRACE_SERVICE
from shared.contracts.span_messages import LOG_RECORD_ATTRIBUTE
from shared.db.api_keys import create_key_sync
from shared.db.models import ApiKey
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
    until,
)
from yardstick.api.roles import Role
from yardstick.api.topology import Topology

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
        export: Any = channel.unary_unary(f"/{TRACE_SERVICE}/Export")
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

    no_message = await asyncio.to_thread(_export, ingest.grpc_address, key, iter([]))
    assert no_message[:2] == (grpc.StatusCode.INVALID_ARGUMENT, (
        "the call carried no export request: send one message, of at most 65536 bytes "
        "(gRPC refuses a larger one itself)"
    ))  # fmt: skip


def _export(
    address: str, key: str, body: bytes | Iterator[bytes]
) -> tuple[grpc.StatusCode, str, float | None]:
    """One ``TraceService/Export`` call (``body`` an iterator: its messages, client-streaming, which is
    the same on the wire): its status, detail and RetryInfo delay (None: none sent)."""
    with grpc.insecure_channel(address) as channel:
        path = f"/{TRACE_SERVICE}/Export"
        export: Any = channel.unary_unary(path) if isinstance(body, bytes) else channel.stream_unary(path)
        try:
            export(body, metadata=_metadata(key), timeout=20)
        except grpc.RpcError as error:
            refused = cast(grpc.Call, error)  # a failed call is both
            retry = dict(refused.trailing_metadata() or ()).get(RETRY_INFO_KEY)
            delay = None if retry is None else RetryInfo.FromString(retry).retry_delay.ToTimedelta()
            return refused.code(), refused.details() or "", None if delay is None else delay.total_seconds()
        return grpc.StatusCode.OK, "", None


async def test_a_flood_past_the_in_flight_bound_is_resource_exhausted_with_a_retry_delay(
    database_url: str,
    nats_url: str,
    topology: Topology,
    nats_client: NatsClient,
    session_factory: async_sessionmaker[AsyncSession],
) -> None:
    key = create_key_sync(database_url, SECRET, "shop", Role.INGEST)
    settings = ingest_settings(database_url, nats_url, topology, ingest_max_inflight_requests=1)
    held_body, flood_body = (encode_spans(make_spans(chat_trace)).SerializeToString() for _ in range(2))
    with serve_ingest(settings) as ingest:
        address = ingest.grpc_address
        async with session_factory() as session, session.begin():
            # The key's row locked: the first call's key check (it stamps last_used_at) waits on it,
            # its place taken.
            await session.execute(select(ApiKey).where(ApiKey.name == "shop").with_for_update())
            held = asyncio.create_task(asyncio.to_thread(_export, address, key, held_body))
            await until(lambda: ingest.health()["in_flight"]["requests"] == 1, what="first call held")
            answered = threading.Event()

            def after_the_answer() -> Iterator[bytes]:
                answered.wait(30)  # a refusal that waited for the message would never come
                yield flood_body

            flood = await asyncio.gather(
                *(asyncio.to_thread(_export, address, key, flood_body) for _ in range(4)),
                asyncio.to_thread(_export, address, key, after_the_answer()),
            )
            answered.set()
        assert await held == (grpc.StatusCode.OK, "", None)
        resent = [await asyncio.to_thread(_export, address, key, flood_body) for _ in range(2)]
        health = await asyncio.to_thread(ingest.health)
    for code, detail, delay in flood:
        assert (code, delay) == (grpc.StatusCode.RESOURCE_EXHAUSTED, settings.ingest_retry_after_s)
        assert "busy" in detail and "retry" in detail, detail
    assert resent == [(grpc.StatusCode.OK, "", None)] * 2  # the exporter's retry, then a resend
    assert health["answers"] == {"200": 3, "429": 5}
    assert health["in_flight"] == {"requests": 0, "bytes": 0} and health["duplicates"] == 1
    stored = await stored_spans(nats_client, topology)
    assert len(stored) == len({span.span_id for span in stored}) == 6  # both calls' three, once each
