"""Spans (and log records) made by the real OpenTelemetry SDK, through the SDK's own OTLP encoder and
the ingest service's decoding, as the sampler will read them from ``traffic.spans``."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk._logs import ReadableLogRecord
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider

from services.ingest.log_conversion import convert_logs
from services.ingest.span_conversion import SpanLimits, convert_request
from shared.contracts.span_messages import ResourceSpans, Span
from shared.traces import TraceAssembler
from tests.services.ingest.harness import make_spans
from yardstick.api.trace_record import Completeness, TraceRecord


def received(spans: list[ReadableSpan]) -> list[tuple[ResourceSpans, Span]]:
    conversion = convert_request(encode_spans(spans), SpanLimits())
    assert conversion.rejections == []
    return [(group, span) for group in conversion.groups for span in group.spans]


def received_logs(logs: list[ReadableLogRecord]) -> list[tuple[ResourceSpans, Span]]:
    """GenAI events sent as OTLP logs, as the ingest passes them on (carrier spans)."""
    conversion = convert_logs(encode_logs(logs), SpanLimits())
    return [(group, span) for group in conversion.groups for span in group.spans]


def record_of(build: Callable[[TracerProvider], None], service: str = "shop-assistant") -> TraceRecord:
    """The one trace ``build`` makes, assembled and mapped."""
    assembler = TraceAssembler()
    for group, span in received(make_spans(build, service)):
        assembler.add_span("default", group, span, now=0.0)
    traces = assembler.ready(now=60.0)
    assert len(traces) == 1, [t.trace_id for t in traces]
    assert traces[0].completeness in (Completeness.ROOT_ENDED, Completeness.QUIET)
    return traces[0].record()


def as_json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))
