"""The OTLP receiver against the real nats-server and PostgreSQL, fed by the real OpenTelemetry SDK
exporter: stored once, deduplicated on a resend, both encodings and gzip, and every refusal."""

from __future__ import annotations

import asyncio
import gzip
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
from google.protobuf import json_format
from nats.aio.client import Client as NatsClient
from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse
from opentelemetry.sdk._logs.export import LogRecordExportResult
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SpanExportResult

from shared.db.api_keys import create_key_sync
from shared.traces import TraceAssembler
from tests.services.ingest.harness import (
    HTTP_ENDPOINTS,
    SECRET,
    Endpoint,
    Ingest,
    chat_trace,
    exporter,
    genai_events,
    ingest_settings,
    make_spans,
    make_spans_and_logs,
    serve_ingest,
    span_ids,
    stored_batches,
    stored_spans,
)
from yardstick.api.roles import Role
from yardstick.api.topology import Topology

pytestmark = pytest.mark.integration


@pytest.fixture
def ingest(database_url: str, nats_url: str, topology: Topology, nats_client: NatsClient) -> Iterator[Ingest]:
    settings = ingest_settings(
        database_url, nats_url, topology, max_body_bytes=256 * 1024, ingest_max_spans_per_request=50
    )
    with serve_ingest(settings) as served:
        yield served


@pytest.fixture
def key(database_url: str) -> str:
    return create_key_sync(database_url, SECRET, "shop-assistant", Role.INGEST)


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(timeout=10) as http:
        yield http


async def test_sdk_export_lands_once_and_a_resent_export_is_deduplicated(
    ingest: Ingest, key: str, nats_client: NatsClient, topology: Topology
) -> None:
    spans = make_spans(lambda provider: chat_trace(provider, turns=2))
    sdk_exporter = exporter(ingest, key)
    assert await asyncio.to_thread(sdk_exporter.export, spans) is SpanExportResult.SUCCESS
    assert await asyncio.to_thread(sdk_exporter.export, spans) is SpanExportResult.SUCCESS  # a retry

    stored = await stored_spans(nats_client, topology)
    assert sorted(span.span_id for span in stored) == span_ids(spans)  # every span, once
    health = await asyncio.to_thread(ingest.health)
    assert health["ok"] is True
    assert health["duplicates"] == 1
    root = next(span for span in stored if span.parent_span_id is None)
    assert root.name == "invoke_agent shop"
    assert root.attributes["gen_ai.operation.name"] == "invoke_agent"

    assembler = TraceAssembler()  # what the stream gives a reader: one trace, read whole
    for batch in await stored_batches(nats_client, topology):
        assembler.add(batch, now=0.0)
    [trace] = assembler.ready(now=60.0)
    record = trace.record()
    assert (record.project_id, record.application, record.span_count) == ("default", "shop-assistant", 5)
    assert [call.name for call in record.tool_calls] == ["lookup", "lookup"]
    assert record.usage.input_tokens == 21


async def test_gzip_protobuf_and_json_encodings_are_accepted(
    ingest: Ingest, key: str, nats_client: NatsClient, topology: Topology, client: httpx.AsyncClient
) -> None:
    gzip_spans = make_spans(chat_trace)
    assert (
        await asyncio.to_thread(exporter(ingest, key, gzip=True).export, gzip_spans)
        is SpanExportResult.SUCCESS
    )

    json_spans = make_spans(chat_trace)
    document = json_format.MessageToDict(encode_spans(json_spans))
    for resource in document["resourceSpans"]:  # OTLP/JSON: ids in hex, not protobuf's base64
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                for field in ("traceId", "spanId", "parentSpanId"):
                    if field in span:
                        span[field] = _b64_to_hex(span[field])
    response = await client.post(
        ingest.traces_url,
        json=document,
        headers={"Authorization": f"Bearer {key}", "Content-Encoding": "identity"},
    )
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/json")
    assert "partialSuccess" not in response.json()

    stored = await stored_spans(nats_client, topology)
    assert sorted(span.span_id for span in stored) == sorted(span_ids(gzip_spans) + span_ids(json_spans))


def _b64_to_hex(value: str) -> str:
    import base64

    return base64.b64decode(value).hex()


@pytest.mark.parametrize("endpoint", HTTP_ENDPOINTS, ids=str)
async def test_a_malformed_body_is_400_naming_what_is_wrong_and_nothing_is_published(
    ingest: Ingest,
    key: str,
    nats_client: NatsClient,
    topology: Topology,
    client: httpx.AsyncClient,
    endpoint: Endpoint,
) -> None:
    protobuf = endpoint.headers(key)
    json = protobuf | {"Content-Type": "application/json"}
    cases = [
        (protobuf, b"\xff\xff\xff\xff not protobuf", f"not a protobuf {endpoint.request_name}"),
        (json, endpoint.misshapen_json(), f"not an OTLP {endpoint.request_name}"),
        (json, b"{not json", "not JSON"),
        (json, b"[1, 2]", "must be an object"),
        (json, endpoint.non_hex_id_json(), "traceId 'zz' is not hex"),
        (protobuf | {"Content-Encoding": "gzip"}, b"not gzip at all", "not valid gzip"),
    ]
    for headers, body, what in cases:
        response = await client.post(endpoint.url(ingest), content=body, headers=headers)
        assert response.status_code == 400, (body, response.text)
        assert response.headers["content-type"] == "application/problem+json"
        assert response.json()["error"] == "MalformedExport"
        assert what in response.json()["detail"], response.json()["detail"]
        assert "send" in response.json()["detail"]  # says what to do
    response = await client.post(
        endpoint.url(ingest), content=b"x", headers=protobuf | {"Content-Type": "text/plain"}
    )
    assert response.status_code == 415
    assert "application/x-protobuf" in response.json()["detail"]
    assert await stored_spans(nats_client, topology) == []


@pytest.mark.parametrize("endpoint", HTTP_ENDPOINTS, ids=str)
async def test_keys_are_checked_401_without_and_403_for_a_role_without_ingest(
    ingest: Ingest,
    database_url: str,
    nats_client: NatsClient,
    topology: Topology,
    client: httpx.AsyncClient,
    endpoint: Endpoint,
) -> None:
    body = endpoint.body()
    missing = await client.post(endpoint.url(ingest), content=body, headers=endpoint.headers(None))
    wrong = await client.post(endpoint.url(ingest), content=body, headers=endpoint.headers("ys_not-a-key"))
    viewer = create_key_sync(database_url, SECRET, "dashboards", Role.VIEWER)
    forbidden = await client.post(endpoint.url(ingest), content=body, headers=endpoint.headers(viewer))
    admin = create_key_sync(database_url, SECRET, "admin", Role.ADMIN)
    allowed = await client.post(endpoint.url(ingest), content=body, headers=endpoint.headers(admin))
    assert (missing.status_code, wrong.status_code, forbidden.status_code) == (401, 401, 403)
    assert "missing API key" in missing.json()["detail"]
    assert "invalid, expired or revoked" in wrong.json()["detail"]
    assert "ingest" in forbidden.json()["detail"]
    assert all(r.headers["content-type"] == "application/problem+json" for r in (missing, wrong, forbidden))
    assert allowed.status_code == 200
    assert len(await stored_spans(nats_client, topology)) == 3


async def test_oversized_requests_are_413_and_bad_spans_are_a_partial_success(
    ingest: Ingest, key: str, nats_client: NatsClient, topology: Topology, client: httpx.AsyncClient
) -> None:
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/x-protobuf"}
    too_big = await client.post(ingest.traces_url, content=b"\x00" * (300 * 1024), headers=headers)
    assert too_big.status_code == 413
    assert "OTEL_BSP_MAX_EXPORT_BATCH_SIZE" in too_big.json()["detail"]

    many = encode_spans(make_spans(lambda provider: chat_trace(provider, turns=30))).SerializeToString()
    too_many = await client.post(ingest.traces_url, content=many, headers=headers)
    assert too_many.status_code == 413
    assert "61 spans in one request, at most 50" in too_many.json()["detail"]

    bomb = gzip.compress(b"\x00" * (40 * 2**20))  # inflates past the 32 MiB bound
    inflated = await client.post(
        ingest.traces_url, content=bomb, headers=headers | {"Content-Encoding": "gzip"}
    )
    assert inflated.status_code == 413

    def build(provider: TracerProvider) -> None:
        tracer = provider.get_tracer("test")
        with tracer.start_as_current_span("fine"), tracer.start_as_current_span("nul") as bad:
            bad.set_attribute("input.value", "before\x00after")
        with tracer.start_as_current_span("huge") as huge:
            huge.set_attribute("output.value", "x" * (300 * 1024))

    spans = make_spans(build)
    body = gzip.compress(encode_spans(spans).SerializeToString())
    partial = await client.post(
        ingest.traces_url, content=body, headers=headers | {"Content-Encoding": "gzip"}
    )
    assert partial.status_code == 200
    answer = ExportTraceServiceResponse.FromString(partial.content)
    assert answer.partial_success.rejected_spans == 2
    assert "contains NUL" in answer.partial_success.error_message
    assert "longer than 262144 bytes" in answer.partial_success.error_message
    assert [span.name for span in await stored_spans(nats_client, topology)] == ["fine"]


async def test_logs_are_stored_once_on_a_resend_and_too_many_records_are_413(
    ingest: Ingest, key: str, nats_client: NatsClient, topology: Topology, client: httpx.AsyncClient
) -> None:
    _, logs = make_spans_and_logs(genai_events)
    sdk = OTLPLogExporter(endpoint=ingest.logs_url, headers={"Authorization": f"Bearer {key}"}, timeout=10)
    assert await asyncio.to_thread(sdk.export, logs) is LogRecordExportResult.SUCCESS
    assert await asyncio.to_thread(sdk.export, logs) is LogRecordExportResult.SUCCESS  # a retry
    stored = await stored_spans(nats_client, topology)
    assert sorted(str(s.events[0].attributes["content"]) for s in stored) == [
        "message 0",
        "message 1",
        "message 2",
    ]
    assert (await asyncio.to_thread(ingest.health))["duplicates"] == 1

    too_many = encode_logs(logs * 20).SerializeToString()  # 60 records, at most 50
    refused = await client.post(
        ingest.logs_url,
        content=too_many,
        headers={"Content-Type": "application/x-protobuf", "Authorization": f"Bearer {key}"},
    )
    assert refused.status_code == 413
    assert refused.headers["content-type"] == "application/problem+json"
    assert "60 log records in one request, at most 50" in refused.json()["detail"]
    assert len(await stored_spans(nats_client, topology)) == 3
