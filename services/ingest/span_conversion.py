"""OTLP protobuf spans into the ``traffic.spans`` contract, checking each against the limits.

A request with more spans than ``max_spans`` is refused whole (413: the exporter should send
smaller batches). Otherwise each span is checked on its own, and one that breaks a rule is left out
and counted, with the reason, for the OTLP partial-success answer; the others are kept:

- a trace id of 16 bytes and span ids of 8 bytes, not all zero (a parent id empty or 8 bytes);
- text (names, keys, values, status messages) valid, without NUL, values at most
  ``max_value_bytes`` long (a string, or a bytes value, or all of an array's or map's values);
- at most ``max_attributes`` attributes (on the span, each event, the resource) and ``max_events``.

A resource that breaks a rule leaves out all its spans. Values become JSON: bytes as base64 text,
a non-finite double as its text (``"nan"``, ``"inf"``); the models are built without revalidation
since every field is produced here with its type.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol, TypeVar

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, InstrumentationScope, KeyValue
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from opentelemetry.proto.trace.v1 import trace_pb2
from pydantic import BaseModel, Field, JsonValue

from services.ingest.errors import TooManySpans
from shared.contracts.span_messages import (
    Attributes,
    ResourceSpans,
    Span,
    SpanEvent,
    SpanKind,
    SpanLink,
    SpanStatus,
    StatusCode,
)

_KINDS = list(SpanKind)  # OTLP's enum numbers, in order
_STATUS = list(StatusCode)
_ZERO_TRACE = bytes(16)
_ZERO_SPAN = bytes(8)


class SpanLimits(BaseModel, frozen=True):
    max_spans: int = Field(default=10_000, ge=1, description="Spans in one request")
    max_value_bytes: int = Field(default=256 * 1024, ge=1, description="One attribute value")
    max_attributes: int = Field(default=256, ge=1, description="Attributes of a span, event or resource")
    max_events: int = Field(default=256, ge=0, description="Events of one span")


class Rejection(BaseModel, frozen=True):
    span_id: str = Field(description="Hex id of the span left out ('' when it had none)")
    reason: str = Field(description="Which rule it broke")


class Conversion(BaseModel):
    groups: list[ResourceSpans] = Field(default_factory=list, description="The spans kept")
    accepted: int = 0
    rejections: list[Rejection] = Field(default_factory=list)


class SpanRuleBroken(ValueError):
    """One span (or its resource) breaks a rule: left out, the reason reported."""


def convert_request(request: ExportTraceServiceRequest, limits: SpanLimits) -> Conversion:
    """The spans of ``request`` that keep the rules, grouped by resource and scope."""
    total = sum(len(scope.spans) for rs in request.resource_spans for scope in rs.scope_spans)
    if total > limits.max_spans:
        raise TooManySpans(
            f"{total} spans in one request, at most {limits.max_spans}: send smaller batches "
            "(OTEL_BSP_MAX_EXPORT_BATCH_SIZE)"
        )
    groups = (
        (rs.resource, [(scope.scope, scope.spans) for scope in rs.scope_spans])
        for rs in request.resource_spans
    )
    return convert_groups(groups, limits, _span)


class _Item(Protocol):
    @property
    def span_id(self) -> bytes: ...


Item = TypeVar("Item", bound=_Item)


def convert_groups(
    groups: Iterable[tuple[Resource, Sequence[tuple[InstrumentationScope, Sequence[Item]]]]],
    limits: SpanLimits,
    convert: Callable[[Item, SpanLimits], Span],
) -> Conversion:
    """Items (spans, log records) of OTLP's resource and scope groups, each converted by ``convert``
    or left out with the rule it broke; a resource or scope that breaks one leaves out all its items."""
    out = Conversion()
    for resource, scopes in groups:
        try:
            attributes = checked_attributes(resource.attributes, limits, "resource")
        except SpanRuleBroken as exc:
            for _, items in scopes:
                out.rejections.extend(_rejected(items, exc))
            continue
        for scope, items in scopes:
            try:
                name = checked_text(scope.name, limits, "scope name")
                version = checked_text(scope.version, limits, "scope version")
            except SpanRuleBroken as exc:
                out.rejections.extend(_rejected(items, exc))
                continue
            kept: list[Span] = []
            for item in items:
                try:
                    kept.append(convert(item, limits))
                except SpanRuleBroken as exc:
                    out.rejections.append(Rejection(span_id=item.span_id.hex(), reason=str(exc)))
            if kept:
                out.accepted += len(kept)
                out.groups.append(
                    ResourceSpans.model_construct(
                        resource=attributes, scope_name=name, scope_version=version, spans=kept
                    )
                )
    return out


def _rejected(items: Iterable[_Item], exc: SpanRuleBroken) -> list[Rejection]:
    return [Rejection(span_id=item.span_id.hex(), reason=str(exc)) for item in items]


def _span(span: trace_pb2.Span, limits: SpanLimits) -> Span:
    trace_id, span_id, parent = span.trace_id, span.span_id, span.parent_span_id
    if len(trace_id) != 16 or trace_id == _ZERO_TRACE:
        raise SpanRuleBroken(f"trace id must be 16 bytes, not all zero (got {len(trace_id)} bytes)")
    if len(span_id) != 8 or span_id == _ZERO_SPAN:
        raise SpanRuleBroken(f"span id must be 8 bytes, not all zero (got {len(span_id)} bytes)")
    if parent and len(parent) != 8:
        raise SpanRuleBroken(f"parent span id must be 8 bytes or empty (got {len(parent)} bytes)")
    if len(span.events) > limits.max_events:
        raise SpanRuleBroken(f"{len(span.events)} events, at most {limits.max_events}")
    return Span.model_construct(
        trace_id=trace_id.hex(),
        span_id=span_id.hex(),
        parent_span_id=parent.hex() if parent and parent != _ZERO_SPAN else None,
        name=checked_text(span.name, limits, "span name"),
        kind=_KINDS[span.kind] if 0 <= span.kind < len(_KINDS) else SpanKind.UNSPECIFIED,
        start_unix_nano=span.start_time_unix_nano,
        end_unix_nano=span.end_time_unix_nano,
        status=SpanStatus.model_construct(
            code=_STATUS[span.status.code] if 0 <= span.status.code < len(_STATUS) else StatusCode.UNSET,
            message=checked_text(span.status.message, limits, "status message"),
        ),
        attributes=checked_attributes(span.attributes, limits, "span"),
        events=[
            SpanEvent.model_construct(
                name=checked_text(event.name, limits, "event name"),
                time_unix_nano=event.time_unix_nano,
                attributes=checked_attributes(event.attributes, limits, f"event {event.name[:40]!r}"),
            )
            for event in span.events
        ],
        links=[
            SpanLink.model_construct(trace_id=link.trace_id.hex(), span_id=link.span_id.hex())
            for link in span.links
            if len(link.trace_id) == 16 and len(link.span_id) == 8
        ],
    )


def checked_attributes(pairs: Sequence[KeyValue], limits: SpanLimits, where: str) -> Attributes:
    if len(pairs) > limits.max_attributes:
        raise SpanRuleBroken(f"{where} has {len(pairs)} attributes, at most {limits.max_attributes}")
    out: Attributes = {}
    for pair in pairs:
        key = checked_text(pair.key, limits, f"{where} attribute key")
        budget = [limits.max_value_bytes]
        out[key] = checked_value(pair.value, budget, limits, key)
    return out


def checked_value(value: AnyValue, budget: list[int], limits: SpanLimits, key: str) -> JsonValue:
    """One attribute value as JSON; ``budget`` is what the attribute may still use, in bytes."""
    kind = value.WhichOneof("value")
    if kind == "string_value":
        text = value.string_value
        size = len(text)
        if size * 4 > budget[0]:  # only then can the UTF-8 length matter
            size = len(text.encode())
        _spend(budget, size, limits, key)
        if "\x00" in text:
            raise SpanRuleBroken(f"attribute {key!r} contains NUL (\\u0000)")
        return text
    if kind == "int_value":
        return value.int_value
    if kind == "bool_value":
        return value.bool_value
    if kind == "double_value":
        number = value.double_value
        return number if math.isfinite(number) else str(number)
    if kind == "bytes_value":
        _spend(budget, len(value.bytes_value), limits, key)
        return base64.b64encode(value.bytes_value).decode()
    if kind == "array_value":
        return [checked_value(item, budget, limits, key) for item in value.array_value.values]
    if kind == "kvlist_value":
        return {
            checked_text(item.key, limits, f"attribute {key!r} key"): checked_value(
                item.value, budget, limits, key
            )
            for item in value.kvlist_value.values
        }
    return None  # an empty AnyValue (or a string-table index, which spans never use)


def _spend(budget: list[int], size: int, limits: SpanLimits, key: str) -> None:
    budget[0] -= size
    if budget[0] < 0:
        raise SpanRuleBroken(f"attribute {key!r} is longer than {limits.max_value_bytes} bytes")


def checked_text(value: str, limits: SpanLimits, what: str) -> str:
    if "\x00" in value:
        raise SpanRuleBroken(f"{what} contains NUL (\\u0000)")
    if len(value) > limits.max_value_bytes:
        raise SpanRuleBroken(f"{what} is longer than {limits.max_value_bytes} characters")
    return value
