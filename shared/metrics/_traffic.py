"""Production traffic: spans received by ingest, sampling decisions of the sampler."""

from __future__ import annotations

from prometheus_client import Counter

SPANS_INGESTED = Counter(
    "yardstick_ingest_spans_total",
    "Spans in OTLP exports answered 200 by ingest, by outcome: accepted (published to JetStream) or "
    "rejected (left out of a partial success: invalid, too large).",
    ["outcome"],
)
EXPORTS_REFUSED = Counter(
    "yardstick_ingest_exports_refused_total",
    "Whole OTLP exports ingest refused, by HTTP status (401/403 key, 413 size, 429 overloaded, "
    "503 NATS away, 4xx malformed).",
    ["status"],
)
SAMPLER_DECISIONS = Counter(
    "yardstick_sampler_decisions_total",
    "Turns and new traces the sampler decided on, by application (service.name of a trace; "
    "'agent' for the drive-thru agent's turns) and decision: sampled (scored and stored), or "
    "skipped as not_sampled (the rate), filtered (the filters) or capped (the per-minute cap).",
    ["application", "decision"],
)
