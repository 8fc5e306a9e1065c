"""Spans into traces: when is a trace complete? The policy as a pure class (time is an argument).

Spans of one trace arrive in any order, over several export requests, even from several processes.
A trace is handed on:

- ``settle_s`` after its last span arrived, once its root span (no parent) is there: a root span
  is exported when it ends, which is after its children end, but late children of other processes
  may still be in flight (``ROOT_ENDED``);
- ``quiet_s`` after its last span arrived, without a root span: partial, kept (``QUIET``);
- at once, when it holds ``max_spans_per_trace`` spans (``TOO_MANY_SPANS``; later spans of the same
  trace start a new part), or when more than ``max_open_traces`` are open (the least recently
  updated one, ``EVICTED``).

Nothing is dropped: a span that arrives after its trace was handed on starts a new part with the
same trace id; whoever stores the records merges parts by trace id. Memory is bounded by
``max_open_traces`` times ``max_spans_per_trace`` spans.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from shared.contracts.span_messages import ResourceSpans, Span, SpanBatch
from shared.traces._mapping import trace_record
from yardstick.api.trace_record import Completeness, TraceRecord


class AssemblyPolicy(BaseModel, frozen=True):
    settle_s: float = Field(default=2.0, ge=0, description="After the root span, wait this long for more")
    quiet_s: float = Field(default=30.0, gt=0, description="Without a root span, hand on after this quiet")
    max_open_traces: int = Field(default=10_000, ge=1)
    max_spans_per_trace: int = Field(default=2_000, ge=1)


class AssembledTrace(BaseModel, frozen=True):
    project_id: str
    trace_id: str
    spans: list[tuple[ResourceSpans, Span]]
    completeness: Completeness

    def record(self) -> TraceRecord:
        return trace_record(self.project_id, self.spans, self.completeness)


class _Open:
    __slots__ = ("has_root", "last_seen", "spans")

    def __init__(self, now: float) -> None:
        self.spans: list[tuple[ResourceSpans, Span]] = []
        self.has_root = False
        self.last_seen = now


class TraceAssembler:
    def __init__(self, policy: AssemblyPolicy | None = None) -> None:
        self.policy = policy or AssemblyPolicy()
        self._open: dict[tuple[str, str], _Open] = {}  # insertion order = least recently updated first
        self._handed: list[AssembledTrace] = []

    @property
    def open_traces(self) -> int:
        return len(self._open)

    @property
    def has_handed(self) -> bool:
        """Traces handed on early (span bound, eviction) wait for the next :meth:`ready`."""
        return bool(self._handed)

    def is_open(self, project_id: str, trace_id: str) -> bool:
        """True while spans of this trace wait to be handed on."""
        return (project_id, trace_id) in self._open

    def add(self, batch: SpanBatch, now: float) -> None:
        """Take the spans of one message, received at ``now`` (seconds, any monotonic clock)."""
        for group, span in batch.spans():
            self.add_span(batch.project_id, group, span, now)

    def add_span(self, project_id: str, group: ResourceSpans, span: Span, now: float) -> None:
        key = (project_id, span.trace_id)
        trace = self._open.pop(key, None) or _Open(now)
        self._open[key] = trace  # moved to the end: most recently updated
        trace.spans.append((group, span))
        trace.has_root = trace.has_root or span.parent_span_id is None
        trace.last_seen = now
        if len(trace.spans) >= self.policy.max_spans_per_trace:
            self._hand_on(key, Completeness.TOO_MANY_SPANS)
        elif len(self._open) > self.policy.max_open_traces:
            self._hand_on(next(iter(self._open)), Completeness.EVICTED)

    def ready(self, now: float) -> list[AssembledTrace]:
        """The traces complete at ``now`` (and any handed on early), each once."""
        for key, trace in list(self._open.items()):
            quiet = now - trace.last_seen
            if trace.has_root and quiet >= self.policy.settle_s:
                self._hand_on(key, Completeness.ROOT_ENDED)
            elif quiet >= self.policy.quiet_s:
                self._hand_on(key, Completeness.QUIET)
        handed, self._handed = self._handed, []
        return handed

    def flush(self) -> list[AssembledTrace]:
        """Every open trace, now (at shutdown), as partial."""
        for key in list(self._open):
            self._hand_on(key, Completeness.FLUSHED)
        handed, self._handed = self._handed, []
        return handed

    def _hand_on(self, key: tuple[str, str], completeness: Completeness) -> None:
        trace = self._open.pop(key)
        self._handed.append(
            AssembledTrace(project_id=key[0], trace_id=key[1], spans=trace.spans, completeness=completeness)
        )
