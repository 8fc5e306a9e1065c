"""The assembly policy: when a trace is handed on, and that nothing is ever dropped."""

from __future__ import annotations

import pytest

from shared.contracts.span_messages import ResourceSpans, Span, SpanBatch
from shared.traces import AssemblyPolicy, TraceAssembler
from yardstick.api.trace_record import Completeness

pytestmark = pytest.mark.unit

GROUP = ResourceSpans(resource={"service.name": "app"})


def span(trace: int, span_id: int, parent: int | None = None) -> Span:
    return Span(
        trace_id=f"{trace:032x}",
        span_id=f"{span_id:016x}",
        parent_span_id=None if parent is None else f"{parent:016x}",
        name=f"s{span_id}",
        start_unix_nano=span_id,
        end_unix_nano=span_id + 10,
    )


def test_a_trace_is_complete_once_its_root_arrived_and_it_settled() -> None:
    assembler = TraceAssembler(AssemblyPolicy(settle_s=2.0, quiet_s=30.0))
    assembler.add_span("default", GROUP, span(1, 2, parent=1), now=0.0)
    assembler.add_span("default", GROUP, span(1, 1), now=1.0)  # the root ends last
    assert assembler.ready(now=2.5) == []
    assembler.add_span("default", GROUP, span(1, 3, parent=1), now=2.9)  # a late child still joins
    assert assembler.ready(now=4.8) == []
    [done] = assembler.ready(now=4.9)
    assert (done.completeness, len(done.spans)) == (Completeness.ROOT_ENDED, 3)
    assert assembler.open_traces == 0
    assembler.add_span("default", GROUP, span(1, 4, parent=1), now=5.0)  # after: a new part, kept
    assert [t.completeness for t in assembler.flush()] == [Completeness.FLUSHED]


def test_bounds_hand_traces_on_early_instead_of_dropping_them() -> None:
    assembler = TraceAssembler(AssemblyPolicy(max_open_traces=2, max_spans_per_trace=3))
    for trace in (1, 2, 3):
        assembler.add_span("default", GROUP, span(trace, 10 * trace), now=float(trace))
    [evicted] = assembler.ready(now=3.0)
    assert (evicted.trace_id, evicted.completeness) == (f"{1:032x}", Completeness.EVICTED)
    for span_id in (41, 42, 43, 44):
        assembler.add_span("default", GROUP, span(4, span_id, parent=40), now=4.0)
    handed = assembler.ready(now=4.0)
    assert [(t.trace_id[-1], t.completeness, len(t.spans)) for t in handed] == [
        ("2", Completeness.EVICTED, 1),
        ("4", Completeness.TOO_MANY_SPANS, 3),
    ]
    rest = assembler.flush()  # trace 3, and the fourth span of trace 4 as a part of its own
    assert sorted((t.trace_id[-1], len(t.spans)) for t in rest) == [("3", 1), ("4", 1)]


def test_projects_do_not_mix_and_a_batch_is_taken_whole() -> None:
    assembler = TraceAssembler()
    group = ResourceSpans(resource={"service.name": "app"}, spans=[span(1, 1), span(1, 2, parent=1)])
    for project in ("a", "b"):
        assembler.add(
            SpanBatch(project_id=project, received_at="2026-11-26T12:00:00Z", groups=[group]), now=0.0
        )
    handed = assembler.ready(now=10.0)
    assert sorted((t.project_id, len(t.spans)) for t in handed) == [("a", 2), ("b", 2)]
    assert handed[0].record().application == "app"
