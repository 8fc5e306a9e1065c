"""The server's internal message contracts: spans, worker capacity and credits, evaluator catalogues,
item checks, the agent's conversations. The contracts an application also sees (HTTP bodies, the
task worker's messages, NATS names) are the SDK's, in ``yardstick.api``."""

from shared.contracts.span_messages import ResourceSpans, Span, SpanBatch

__all__ = [
    "ResourceSpans",
    "Span",
    "SpanBatch",
]
