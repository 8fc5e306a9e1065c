"""The agent's exported spans read back as the sampler reads them: one trace record per turn."""

from __future__ import annotations

from collections import defaultdict

from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from shared.contracts.span_messages import ResourceSpans, Span
from shared.traces import trace_record
from tests.shared.traces.sdk_spans import received
from yardstick.api.projects import DEFAULT_PROJECT
from yardstick.api.trace_record import Completeness, TraceRecord


def exported_records(*memories: InMemorySpanExporter) -> list[TraceRecord]:
    """The spans the exporters got, through the OTLP encoding and the ingest's conversion, as records
    in the order their turns started (an app's shutdown stops its exporter: one per app instance)."""
    by_trace: dict[str, list[tuple[ResourceSpans, Span]]] = defaultdict(list)
    spans = [span for memory in memories for span in memory.get_finished_spans()]
    for group, span in received(spans):
        by_trace[span.trace_id].append((group, span))
    records = [trace_record(DEFAULT_PROJECT, spans, Completeness.ROOT_ENDED) for spans in by_trace.values()]
    return sorted(records, key=lambda r: r.started_at)
