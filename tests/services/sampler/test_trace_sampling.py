"""Which traces are sampled: filters on what the trace has, a hash of its conversation, the cap."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from services.sampler.sampling import MinuteCap, in_sample
from services.sampler.trace_sampling import decide_trace, sampling_key
from shared.online.application_sampling import EffectiveSampling, TraceFilters
from shared.traces import TraceAssembler
from tests.services.sampler.spans import batch, trace_spans
from yardstick.api.trace_record import TraceRecord

pytestmark = pytest.mark.unit

NOW = datetime(2026, 11, 26, 12, tzinfo=UTC)


def record(n: int, **kw: object) -> TraceRecord:
    assembler = TraceAssembler()
    assembler.add(batch(trace_spans(n, **kw)), now=0.0)  # type: ignore[arg-type]
    (trace,) = assembler.ready(now=60.0)
    return trace.record()


def config(rate: float = 1.0, cap: int | None = None, **filters: object) -> EffectiveSampling:
    return EffectiveSampling(
        rate=rate, filters=TraceFilters.model_validate(filters), cap_per_minute=cap, evaluators=[]
    )


def test_filters_on_model_error_and_tool() -> None:
    plain, failed = record(1), record(2, error=True, tool="refund", model="gpt-b")
    assert decide_trace(plain, config(model="gpt-b"), MinuteCap(), NOW) == "filtered"
    assert decide_trace(failed, config(model="gpt-b"), MinuteCap(), NOW) == "sampled"
    assert decide_trace(plain, config(error=True), MinuteCap(), NOW) == "filtered"
    assert decide_trace(plain, config(error=False), MinuteCap(), NOW) == "sampled"
    assert decide_trace(failed, config(tool="lookup_order"), MinuteCap(), NOW) == "filtered"


def test_a_conversation_is_sampled_whole_and_the_cap_counts_only_sampled_traces() -> None:
    turns = [record(n, conversation="conv-7") for n in range(5)]
    assert {sampling_key(r) for r in turns} == {"conv-7"}
    expected = "sampled" if in_sample("conv-7", 0.5) else "not_sampled"
    assert {decide_trace(r, config(rate=0.5), MinuteCap(), NOW) for r in turns} == {expected}
    cap = MinuteCap()
    assert [decide_trace(r, config(cap=2), cap, NOW) for r in turns] == ["sampled"] * 2 + ["capped"] * 3
    assert sampling_key(record(3)).startswith("trace:")
