"""Which traces are sampled: the application's filters, a deterministic hash of its conversation (or,
without one, of the trace id), then the application's per-minute cap.

All traces of one conversation are in the sample or none are; a late part of a trace already stored
is always merged (the caller checks that first), so a trace is never half-stored.
"""

from __future__ import annotations

from datetime import datetime

from services.sampler.sampling import Decision, MinuteCap, in_sample
from shared.online.application_sampling import EffectiveSampling, TraceFilters
from yardstick.api.trace_record import TraceRecord


def matches_trace_filters(record: TraceRecord, filters: TraceFilters) -> bool:
    if filters.model is not None and filters.model not in record.models:
        return False
    if filters.error is not None and bool(record.errors) != filters.error:
        return False
    return filters.tool is None or any(call.name == filters.tool for call in record.tool_calls)


def sampling_key(record: TraceRecord) -> str:
    """What the hash reads: the conversation, so a conversation is sampled whole."""
    return record.conversation_id or f"trace:{record.trace_id}"


def decide_trace(record: TraceRecord, config: EffectiveSampling, cap: MinuteCap, now: datetime) -> Decision:
    if not matches_trace_filters(record, config.filters):
        return "filtered"
    if not in_sample(sampling_key(record), config.rate):
        return "not_sampled"
    if not cap.take(config.cap_per_minute, now):
        return "capped"
    return "sampled"
