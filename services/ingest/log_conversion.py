"""OTLP log records (GenAI events) into the ``traffic.spans`` contract, checking each against the limits.

Instrumentations that keep message content out of span attributes send it as events over OTLP logs:
the OpenAI instrumentation's ``EVENT_ONLY`` mode (``gen_ai.user.message``, ``gen_ai.choice`` …, or
the newer ``gen_ai.client.inference.operation.details``), OpenLLMetry without legacy attributes. Each
record becomes a *carrier span* (``shared.contracts.span_messages``): a zero-length child of the span
it was emitted in, whose one event is the record, so it joins its trace by the path spans take.

The rules, each record on its own (a record that breaks one is left out, with the reason, for the
OTLP partial-success answer):

- more records in one request than ``max_spans``: the request is refused whole (413);
- the event's name (``event_name``, or the ``event.name`` attribute) starts with ``gen_ai.``: other
  log records are not kept (this is not a log store);
- a trace id of 16 bytes and a span id of 8, not all zero: a record emitted outside a span has no
  trace to join;
- attributes (of the record and its resource) and the body within the span limits.
"""

from __future__ import annotations

import hashlib

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.logs.v1 import logs_pb2

from services.ingest.errors import TooManySpans
from services.ingest.span_conversion import (
    Conversion,
    SpanLimits,
    SpanRuleBroken,
    checked_attributes,
    checked_text,
    checked_value,
    convert_groups,
)
from shared.contracts.span_messages import (
    LOG_BODY_ATTRIBUTE,
    LOG_RECORD_ATTRIBUTE,
    Attributes,
    Span,
    SpanEvent,
    SpanKind,
    SpanStatus,
)

GENAI_PREFIX = "gen_ai."
_ZERO_TRACE = bytes(16)
_ZERO_SPAN = bytes(8)


def convert_logs(request: ExportLogsServiceRequest, limits: SpanLimits) -> Conversion:
    """The GenAI log records of ``request`` that keep the rules, as carrier spans."""
    total = sum(len(scope.log_records) for rl in request.resource_logs for scope in rl.scope_logs)
    if total > limits.max_spans:
        raise TooManySpans(
            f"{total} log records in one request, at most {limits.max_spans}: send smaller batches "
            "(OTEL_BLRP_MAX_EXPORT_BATCH_SIZE)"
        )
    groups = (
        (rl.resource, [(scope.scope, scope.log_records) for scope in rl.scope_logs])
        for rl in request.resource_logs
    )
    return convert_groups(groups, limits, _carrier)


def _carrier(record: logs_pb2.LogRecord, limits: SpanLimits) -> Span:
    attributes = checked_attributes(record.attributes, limits, "log record")
    event = record.event_name or attributes.get("event.name")
    if not isinstance(event, str) or not event.startswith(GENAI_PREFIX):
        named = (
            f"event {event[:60]!r}"
            if isinstance(event, str) and event
            else "a log record without an event name"
        )
        raise SpanRuleBroken(
            f"{named} is not a GenAI event (gen_ai.*): only those are kept, joined to their spans"
        )
    event = checked_text(event, limits, "event name")
    trace_id, parent = record.trace_id, record.span_id
    if len(trace_id) != 16 or trace_id == _ZERO_TRACE or len(parent) != 8 or parent == _ZERO_SPAN:
        raise SpanRuleBroken(
            f"event {event!r} has no trace and span id: emit it while its span is current "
            "(an event outside a span cannot be joined to a trace)"
        )
    body = checked_value(record.body, [limits.max_value_bytes], limits, LOG_BODY_ATTRIBUTE)
    fields: Attributes = dict(body) if isinstance(body, dict) else {}
    if body is not None and not isinstance(body, dict):
        fields[LOG_BODY_ATTRIBUTE] = body
    if len(fields) + len(attributes) > limits.max_attributes:
        raise SpanRuleBroken(
            f"event {event!r} has {len(fields) + len(attributes)} attributes and body fields, "
            f"at most {limits.max_attributes}"
        )
    fields.update(attributes)  # the attributes win over a body field of the same name
    time = record.time_unix_nano or record.observed_time_unix_nano
    return Span.model_construct(
        trace_id=trace_id.hex(),
        span_id=_carrier_id(record),
        parent_span_id=parent.hex(),
        name=event,
        kind=SpanKind.INTERNAL,
        start_unix_nano=time,
        end_unix_nano=time,
        status=SpanStatus.model_construct(),
        attributes={LOG_RECORD_ATTRIBUTE: True},
        events=[SpanEvent.model_construct(name=event, time_unix_nano=time, attributes=fields)],
        links=[],
    )


def _carrier_id(record: logs_pb2.LogRecord) -> str:
    """16 hex digits from the record's bytes: the same record resent is the same span (never zero)."""
    digest = hashlib.sha256(record.SerializeToString(deterministic=True)).digest()[:8]
    return (digest if digest != _ZERO_SPAN else b"\x00" * 7 + b"\x01").hex()
