"""Message contracts and NATS names shared by every service."""

from shared.contracts.span_messages import ResourceSpans, Span, SpanBatch

__all__ = [
    "ResourceSpans",
    "Span",
    "SpanBatch",
]
