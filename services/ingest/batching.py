"""The accepted spans of one request as ``SpanBatch`` messages that each fit in one NATS message.

Usually the whole request is one message. When it is larger than ``max_bytes`` (NATS refuses a
message above the server's ``max_payload``, 1 MiB by default) its spans are ordered by trace and
cut in halves until each part fits, so the spans of a trace stay together when they can. The cut
depends only on the spans, so a retried request gives the same messages with the same
``Nats-Msg-Id``. A single span that cannot fit alone is left out and reported.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

from services.ingest.span_conversion import Rejection
from shared.contracts.span_messages import ResourceSpans, Span, SpanBatch


class EncodedBatch(BaseModel, frozen=True):
    msg_id: str = Field(description="Nats-Msg-Id: digest of project and spans")
    payload: bytes = Field(description="The SpanBatch as JSON")
    span_count: int


def encode_batches(
    project_id: str, received_at: datetime, groups: list[ResourceSpans], max_bytes: int
) -> tuple[list[EncodedBatch], list[Rejection]]:
    """Messages of at most ``max_bytes`` holding ``groups``' spans; the spans too large alone."""
    whole = SpanBatch(project_id=project_id, received_at=received_at, groups=groups)
    payload = whole.model_dump_json().encode()
    if len(payload) <= max_bytes:
        return [EncodedBatch(msg_id=whole.msg_id(), payload=payload, span_count=whole.span_count)], []
    flat = sorted(whole.spans(), key=lambda pair: (pair[1].trace_id, pair[1].start_unix_nano))
    batches: list[EncodedBatch] = []
    rejected: list[Rejection] = []
    _split(project_id, received_at, flat, max_bytes, batches, rejected)
    return batches, rejected


def _split(
    project_id: str,
    received_at: datetime,
    spans: list[tuple[ResourceSpans, Span]],
    max_bytes: int,
    batches: list[EncodedBatch],
    rejected: list[Rejection],
) -> None:
    batch = SpanBatch(project_id=project_id, received_at=received_at, groups=_regroup(spans))
    payload = batch.model_dump_json().encode()
    if len(payload) <= max_bytes:
        batches.append(EncodedBatch(msg_id=batch.msg_id(), payload=payload, span_count=len(spans)))
        return
    if len(spans) == 1:
        rejected.append(
            Rejection(
                span_id=spans[0][1].span_id,
                reason=f"the span takes {len(payload)} bytes as a message, more than one message holds "
                f"({max_bytes}): shorten its attributes",
            )
        )
        return
    middle = len(spans) // 2
    _split(project_id, received_at, spans[:middle], max_bytes, batches, rejected)
    _split(project_id, received_at, spans[middle:], max_bytes, batches, rejected)


def _regroup(spans: list[tuple[ResourceSpans, Span]]) -> list[ResourceSpans]:
    """Back into groups, one per original resource and scope, in first-seen order."""
    by_group: dict[int, tuple[ResourceSpans, list[Span]]] = {}
    for group, span in spans:
        by_group.setdefault(id(group), (group, []))[1].append(span)
    return [
        ResourceSpans.model_construct(
            resource=group.resource,
            scope_name=group.scope_name,
            scope_version=group.scope_version,
            spans=kept,
        )
        for group, kept in by_group.values()
    ]
