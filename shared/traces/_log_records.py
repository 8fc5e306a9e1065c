"""GenAI events that came as OTLP log records, folded back into the spans they were emitted in.

The ingest sends each log record as a carrier span (``shared.contracts.span_messages``: a child of
its span, marked :data:`LOG_RECORD_ATTRIBUTE`, the record as its one event). Here each carrier's event
is appended to its parent span's events, in time order, and the carrier disappears: the span then
reads as if the instrumentation had put the events on it (``gen_ai.user.message``, ``gen_ai.choice``
…, ``gen_ai.client.inference.operation.details``; :mod:`shared.traces._genai`).

Records whose span is not in the trace (not received, or not yet) stand in for it: one span per
missing span id holding its events, so their content is read, with a note saying the span is missing.
When the span comes later its trace is rebuilt from every stored span and the events fold into it.
"""

from __future__ import annotations

from collections.abc import Sequence

from shared.contracts.span_messages import (
    LOG_RECORD_ATTRIBUTE,
    ResourceSpans,
    Span,
    SpanEvent,
    SpanKind,
)

Pair = tuple[ResourceSpans, Span]


def is_log_record(span: Span) -> bool:
    return span.attributes.get(LOG_RECORD_ATTRIBUTE) is True


def fold_log_records(spans: Sequence[Pair]) -> tuple[list[Pair], list[str]]:
    """The spans with the log records' events moved into their spans, and notes on the missing ones."""
    carriers = [(position, pair) for position, pair in enumerate(spans) if is_log_record(pair[1])]
    if not carriers:
        return list(spans), []
    carriers.sort(key=lambda item: (item[1][1].start_unix_nano, item[0]))
    by_parent: dict[str, list[Pair]] = {}
    for _, (group, carrier) in carriers:
        by_parent.setdefault(carrier.parent_span_id or "", []).append((group, carrier))
    out: list[Pair] = []
    for group, span in spans:
        if is_log_record(span):
            continue
        mine = by_parent.pop(span.span_id, None)
        out.append((group, _with_events(span, [c for _, c in mine]) if mine else span))
    notes: list[str] = []
    for parent_id, mine in by_parent.items():
        group, first = mine[0]
        stand_in = Span.model_construct(
            trace_id=first.trace_id,
            span_id=parent_id or first.span_id,
            parent_span_id=None,
            name=first.name,
            kind=SpanKind.INTERNAL,
            start_unix_nano=first.start_unix_nano,
            end_unix_nano=max(c.end_unix_nano for _, c in mine),
            attributes={},
            events=[],
            links=[],
        )
        out.append((group, _with_events(stand_in, [c for _, c in mine])))
        notes.append(
            f"span {parent_id}: {len(mine)} GenAI events (OTLP logs) arrived without their span; "
            "read from the events alone"
        )
    return out, notes


def _with_events(span: Span, carriers: list[Span]) -> Span:
    events: list[SpanEvent] = [*span.events, *(event for carrier in carriers for event in carrier.events)]
    return span.model_copy(update={"events": events})
