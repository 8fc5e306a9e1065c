"""The pure half of the receiver: decoding, the span rules, cutting into messages, the in-flight
bound. OTLP bodies come from the real SDK's encoder."""

from __future__ import annotations

import base64
import gzip
from datetime import UTC, datetime

import pytest
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.trace import TracerProvider

from services.ingest.admission import Admission
from services.ingest.batching import encode_batches
from services.ingest.errors import (
    BodyTooLarge,
    MalformedExport,
    Overloaded,
    TooManySpans,
    UnsupportedMediaType,
)
from services.ingest.export_preparation import ExportBody, prepare_export
from services.ingest.otlp_decoding import (
    Encoding,
    check_content_encoding,
    decode_request,
    encoding_of,
    inflate,
)
from services.ingest.span_conversion import SpanLimits, convert_request
from shared.contracts.span_messages import SpanBatch
from tests.services.ingest.harness import chat_trace, make_spans

pytestmark = pytest.mark.unit
NOW = datetime(2026, 11, 26, tzinfo=UTC)


def _request(turns: int = 1) -> ExportTraceServiceRequest:
    request: ExportTraceServiceRequest = encode_spans(make_spans(lambda p: chat_trace(p, turns=turns)))
    return request


def test_media_types_and_encodings() -> None:
    assert encoding_of("application/x-protobuf") is Encoding.PROTOBUF
    assert encoding_of("application/json; charset=utf-8") is Encoding.JSON
    with pytest.raises(UnsupportedMediaType, match="http/protobuf"):
        encoding_of("text/plain")
    assert check_content_encoding("gzip") is True
    assert check_content_encoding(None) is False
    with pytest.raises(UnsupportedMediaType, match="gzip"):
        check_content_encoding("br")


def test_inflate_is_bounded_and_refuses_what_is_not_gzip() -> None:
    assert inflate(gzip.compress(b"abc"), 10) == b"abc"
    with pytest.raises(BodyTooLarge):
        inflate(gzip.compress(b"a" * 5000), 4096)
    with pytest.raises(MalformedExport, match="not valid gzip"):
        inflate(b"plain", 4096)
    with pytest.raises(MalformedExport, match="truncated"):
        inflate(gzip.compress(b"a" * 5000)[:-12], 10_000)


def test_json_ids_are_hex_and_bad_hex_is_named() -> None:
    trace, span = "5b8efff798038103d269b633813fc60c", "eee19b7ec3c1b174"
    span_json = (
        f'{{"traceId":"{trace}","spanId":"{span}","name":"x","kind":2,'
        '"startTimeUnixNano":"1","endTimeUnixNano":"2","futureField":1}'
    )
    body = ('{"resourceSpans":[{"scopeSpans":[{"spans":[' + span_json + "]}]}]}").encode()
    request = decode_request(body, Encoding.JSON)
    decoded = request.resource_spans[0].scope_spans[0].spans[0]
    assert (decoded.trace_id.hex(), decoded.span_id.hex(), decoded.kind) == (trace, span, 2)
    with pytest.raises(MalformedExport, match="spanId 'zz' is not hex"):
        decode_request(body.replace(span.encode(), b"zz"), Encoding.JSON)
    with pytest.raises(MalformedExport, match="must be an object"):
        decode_request(b"[1]", Encoding.JSON)


def test_conversion_keeps_the_good_spans_and_names_why_the_others_were_left_out() -> None:
    request = _request(turns=2)
    spans = request.resource_spans[0].scope_spans[0].spans
    spans[0].span_id = b"\x00" * 8
    spans[1].attributes.add(key="big").value.string_value = "é" * 40  # 80 bytes in UTF-8
    spans[2].attributes.add(key="list").value.array_value.values.add().bytes_value = b"\x01" * 30
    limits = SpanLimits(max_value_bytes=64)
    out = convert_request(request, limits)
    assert out.accepted == 3
    assert [r.reason for r in out.rejections] == [
        "span id must be 8 bytes, not all zero (got 8 bytes)",
        "attribute 'big' is longer than 64 bytes",
    ]
    kept = out.groups[0].spans
    assert kept[0].attributes["list"] == [base64.b64encode(b"\x01" * 30).decode()]  # bytes as base64
    assert out.groups[0].resource["service.name"] == "shop-assistant"
    with pytest.raises(TooManySpans, match="5 spans in one request, at most 4"):
        convert_request(request, SpanLimits(max_spans=4))


def test_a_large_request_is_cut_into_messages_deterministically() -> None:
    groups = convert_request(_request(turns=40), SpanLimits()).groups
    whole, _ = encode_batches("default", NOW, groups, 10**7)
    assert len(whole) == 1 and whole[0].span_count == 81
    parts, rejected = encode_batches("default", NOW, groups, 8000)
    again, _ = encode_batches("default", datetime.now(UTC), groups, 8000)
    assert rejected == [] and len(parts) > 2
    assert all(len(part.payload) <= 8000 for part in parts)
    assert sum(part.span_count for part in parts) == 81
    assert [p.msg_id for p in parts] == [p.msg_id for p in again]  # a retry is deduplicated
    decoded = [SpanBatch.model_validate_json(part.payload) for part in parts]
    assert len({span.span_id for batch in decoded for _, span in batch.spans()}) == 81
    other_project, _ = encode_batches("other", NOW, groups, 8000)
    assert other_project[0].msg_id != parts[0].msg_id
    _, too_large = encode_batches("default", NOW, groups, 200)
    assert len(too_large) == 81 and "shorten its attributes" in too_large[0].reason


def test_prepare_answers_partial_success_the_otlp_way() -> None:
    def build(provider: TracerProvider) -> None:
        tracer = provider.get_tracer("t")
        with tracer.start_as_current_span("ok"), tracer.start_as_current_span("bad") as bad:
            bad.set_attribute("k", "a\x00b")

    body = encode_spans(make_spans(build)).SerializeToString()
    prepared = prepare_export(
        ExportBody(body=body, encoding=Encoding.PROTOBUF, project_id="default", received_at=NOW),
        SpanLimits(),
        2**20,
    )
    assert prepared.accepted == 1
    assert prepared.error_message().startswith("1 spans rejected: span ")
    assert b'"rejectedSpans":"1"' in prepared.response(Encoding.JSON).replace(b" ", b"")


def test_admission_bounds_requests_and_bytes() -> None:
    admission = Admission(max_requests=2, max_bytes=100)
    with admission.hold(60) as first:
        with pytest.raises(Overloaded):
            admission.hold(50)  # bytes
        with admission.hold(30), pytest.raises(Overloaded):
            admission.hold(1)  # requests
        with pytest.raises(Overloaded):
            first.grow(150)
    assert (admission.requests, admission.bytes, admission.refused) == (0, 0, 3)
    with admission.hold(500):  # one request alone always fits
        pass
