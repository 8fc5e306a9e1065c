"""Store a sampled trace, merge its late parts, and score it, exactly once whatever the redelivery.

- The trace row is unique per (project, trace id); its spans are unique per (trace, span id).
- A first part inserts the row, its spans and its scores.
- A later part (or a redelivered one) inserts only the spans not stored yet. None new: nothing
  changes (a redelivery). Some new: the record is rebuilt from every stored span and the scores are
  computed again and replaced, so they describe the whole trace.
- The row is locked (``FOR UPDATE``) while a part is merged: two samplers holding parts of one
  trace merge one after the other.
- The tables are partitioned by day (the trace's ``day``, set by its first part and never changed;
  its spans and scores carry it too), so no constraint keeps one row per (project, trace id) across
  days: a transaction-level advisory lock per (project, trace id), taken before a trace is looked up,
  makes the look-up and the insert one step for every sampler (locks taken in one order).
- A look-up probes only the days a stored part can be under when the incoming part is led by its
  root span (:func:`lookup_days`: from the root's day to today, a day of clock slack each side), and
  every day otherwise: a trace however long is never stored under two days.

The caller commits.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Literal

from sqlalchemy import BigInteger, ColumnElement, bindparam, select, text, tuple_
from sqlalchemy.dialects.postgresql import ARRAY, insert
from sqlalchemy.ext.asyncio import AsyncSession

from services.sampler.bulk_rows import JsonText, insert_rows
from shared.contracts.span_messages import ResourceSpans, Span
from shared.db.base import utcnow
from shared.db.outcome_rows import trace_score_row
from shared.db.trace_models import Trace, TraceScore, TraceSpan, trace_day
from shared.evaluators import EvaluatorRegistry
from shared.online.trace_scoring import evaluate_trace
from shared.traces import trace_record
from yardstick.api.evaluation import Evaluation, EvaluatorSpec
from yardstick.api.trace_record import Completeness, TraceRecord

Stored = Literal["stored", "merged", "duplicate"]
TRACE_KEY = ["project_id", "trace_id", "day"]
SPAN_KEY = ["trace_pk", "span_id", "day"]
SCORE_KEY = ["trace_pk", "name", "day"]
EVALUATE_AT_ONCE = 16
"""Traces of one batch scored at once (a judge's model calls: as many as the per-trace stores had)."""


@dataclass(frozen=True)
class TracePart:
    """Spans of one trace handed on by the assembler (duplicates by span id are ignored)."""

    project_id: str
    trace_id: str
    spans: Sequence[tuple[ResourceSpans, Span]]
    completeness: Completeness

    def unique_spans(self) -> list[tuple[ResourceSpans, Span]]:
        seen: dict[str, tuple[ResourceSpans, Span]] = {}
        for group, span in self.spans:
            seen.setdefault(span.span_id, (group, span))
        return list(seen.values())

    def record(self) -> TraceRecord:
        return trace_record(self.project_id, self.unique_spans(), self.completeness)


def _columns(record: TraceRecord) -> dict[str, object]:
    return {
        "application": record.application[:200],
        "conversation_id": record.conversation_id[:200] if record.conversation_id else None,
        "model": record.model[:200] if record.model else None,
        "provider": record.provider[:100] if record.provider else None,
        "started_at": record.started_at,
        "ended_at": record.started_at + timedelta(milliseconds=record.latency_ms),
        "latency_ms": record.latency_ms,
        "input_tokens": record.usage.input_tokens,
        "output_tokens": record.usage.output_tokens,
        "total_tokens": record.usage.total_tokens,
        "error": bool(record.errors),
        "tool_names": list(dict.fromkeys(call.name[:200] for call in record.tool_calls)),
        "span_count": record.span_count,
        "completeness": record.completeness.value,
        "record": record,
    }


SCORE_UPDATED = (
    "value",
    "comment",
    "metadata",
    "error",
    "failure",
    "evaluator_version",
    "model",
    "trace_at",
)
"""A score's columns a new score of the same trace and name replaces."""


def _lock_key(project_id: str, trace_id: str) -> int:
    """The advisory lock key of a trace: 64 bits of a hash of (project, trace id)."""
    digest = hashlib.blake2b(f"{project_id}/{trace_id}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


_LOCK_EACH = text("SELECT pg_advisory_xact_lock(k) FROM unnest(:keys) AS k").bindparams(
    bindparam("keys", type_=ARRAY(BigInteger))
)


async def lock_traces(session: AsyncSession, keys: Iterable[tuple[str, str]]) -> None:
    """Hold the advisory lock of each (project, trace id) until the transaction ends (in key order)."""
    ordered = sorted({_lock_key(project, trace) for project, trace in keys})
    if ordered:
        await session.execute(_LOCK_EACH, {"keys": ordered})


Days = tuple[date, date]
"""The first and last day (inclusive) a stored trace is looked up under."""
CLOCK_SLACK = timedelta(days=1)
"""How far the clocks of a trace's services (and the sampler's) may disagree."""


def lookup_days(part: TracePart, now: datetime) -> Days | None:
    """The days a stored part of ``part``'s trace can be under, or None: every day.

    A stored trace's day is the UTC day of the earliest start among the spans of its first stored
    part. When ``part`` is led by its root span (the earliest start has no parent), every span of the
    trace started at or after the root (a span starts after its parent), so the stored day is no
    earlier than the root's; and no later than now, as those spans were exported before they were
    stored (or the part's own latest start, for a clock ahead). Both widened by :data:`CLOCK_SLACK`.
    Without its root leading it (a late part, a trace without root) the trace may have begun on any
    day before: every day is probed, however long the trace.
    """
    spans = [span for _, span in part.spans]
    first = min(spans, key=lambda span: span.start_unix_nano)
    if first.parent_span_id is not None:
        return None
    start = datetime.fromtimestamp(first.start_unix_nano / 1e9, UTC)
    latest = datetime.fromtimestamp(max(span.start_unix_nano for span in spans) / 1e9, UTC)
    return trace_day(start - CLOCK_SLACK), trace_day(max(now, latest) + CLOCK_SLACK)


def _within(days: Days | None) -> list[ColumnElement[bool]]:
    return [] if days is None else [Trace.day.between(*days)]


async def _locked(session: AsyncSession, project_id: str, trace_id: str, days: Days | None) -> Trace | None:
    stmt = (
        select(Trace)
        .where(Trace.project_id == project_id, Trace.trace_id == trace_id, *_within(days))
        .with_for_update()
        .execution_options(populate_existing=True)
    )
    return (await session.execute(stmt)).scalar_one_or_none()


async def stored_trace(
    session: AsyncSession, project_id: str, trace_id: str, days: Days | None = None
) -> Trace | None:
    """The stored trace (looked up under ``days`` only, when given: :func:`lookup_days`), locked
    until the transaction ends (None when it is not stored)."""
    await lock_traces(session, [(project_id, trace_id)])
    return await _locked(session, project_id, trace_id, days)


def _new_row(record: TraceRecord) -> dict[str, object]:
    """A trace's row as first stored: its day is its start's (merges never change it)."""
    return {
        "project_id": record.project_id,
        "trace_id": record.trace_id,
        "day": trace_day(record.started_at),
        **_columns(record),
    }


async def _insert_row(session: AsyncSession, record: TraceRecord) -> int | None:
    stmt = (
        insert(Trace)
        .values(**_new_row(record))
        .on_conflict_do_nothing(index_elements=["project_id", "trace_id", "day"])
        .returning(Trace.id)
    )
    return (await session.execute(stmt)).scalar_one_or_none()


def _span_rows(trace_pk: int, day: date, spans: list[tuple[ResourceSpans, Span]]) -> list[dict[str, object]]:
    return [
        {
            "trace_pk": trace_pk,
            "day": day,
            "span_id": span.span_id,
            "span": group.model_copy(update={"spans": [span]}),
        }
        for group, span in spans
    ]


async def stored_traces(
    session: AsyncSession, keys: Iterable[tuple[str, str]], days: Days | None = None
) -> set[tuple[str, str]]:
    """Which of the (project, trace id) ``keys`` are stored (looked up under ``days`` only, when
    given), their rows locked until the transaction ends, in key order. A caller looking keys up
    under different days in several calls locks them all first (:func:`lock_traces`), in one order."""
    wanted = sorted(set(keys))
    if not wanted:
        return set()
    await lock_traces(session, wanted)
    stmt = (
        select(Trace.project_id, Trace.trace_id)
        .where(tuple_(Trace.project_id, Trace.trace_id).in_(wanted), *_within(days))
        .order_by(Trace.project_id, Trace.trace_id)
        .with_for_update()
    )
    return {(project, trace) for project, trace in (await session.execute(stmt)).all()}


async def _insert_spans(
    session: AsyncSession, trace_pk: int, day: date, spans: list[tuple[ResourceSpans, Span]]
) -> int:
    """Insert the spans not stored yet; how many were new."""
    if not spans:
        return 0
    rows = _span_rows(trace_pk, day, spans)
    stmt = insert(TraceSpan).on_conflict_do_nothing(index_elements=SPAN_KEY).returning(TraceSpan.span_id)
    return len((await session.execute(stmt, rows)).scalars().all())


async def stored_spans(session: AsyncSession, trace_pk: int, day: date) -> list[tuple[ResourceSpans, Span]]:
    stmt = (
        select(TraceSpan.span)
        .where(TraceSpan.trace_pk == trace_pk, TraceSpan.day == day)
        .order_by(TraceSpan.id)
    )
    return [(group, group.spans[0]) for group in (await session.execute(stmt)).scalars()]


def _score_rows(
    trace_pk: int, day: date, record: TraceRecord, evaluations: list[Evaluation]
) -> list[dict[str, object]]:
    return [
        trace_score_row(
            e,
            project_id=record.project_id,
            trace_pk=trace_pk,
            day=day,
            application=record.application,
            model=record.model,
            trace_at=record.started_at,
        )
        for e in evaluations
    ]


async def _upsert_scores(session: AsyncSession, rows: list[dict[str, object]]) -> None:
    """Scores replace the trace's earlier ones of the same name (a merged trace is scored whole)."""
    await insert_rows(session, TraceScore, rows, conflict=SCORE_KEY, update=SCORE_UPDATED)


async def _score(
    session: AsyncSession,
    registry: EvaluatorRegistry,
    trace_pk: int,
    day: date,
    record: TraceRecord,
    specs: list[EvaluatorSpec],
) -> None:
    await _upsert_scores(
        session, _score_rows(trace_pk, day, record, await evaluate_trace(registry, specs, record))
    )


class GroupJSON:
    """A span's row document (its resource group holding just it) written as JSON text: the group's
    fields written once per group, the span's by pydantic; read back as the same
    :class:`ResourceSpans` as a copy of the group with ``spans=[span]`` would be."""

    def __init__(self) -> None:
        self._heads: dict[int, tuple[ResourceSpans, str]] = {}

    def with_span(self, group: ResourceSpans, span: Span) -> JsonText:
        held = self._heads.get(id(group))
        if held is None or held[0] is not group:
            head = group.model_dump_json(exclude={"spans"})[:-1]  # without its closing brace
            held = self._heads[id(group)] = (group, head + ',"spans":[')
        return JsonText(held[1] + span.model_dump_json() + "]}")


@dataclass(frozen=True)
class NewTrace:
    """A sampled part of a trace not stored yet, with its record and its application's evaluators."""

    part: TracePart
    record: TraceRecord
    specs: list[EvaluatorSpec]


async def store_new(
    session: AsyncSession, registry: EvaluatorRegistry, traces: Sequence[NewTrace]
) -> list[bool]:
    """Insert traces not stored yet with their spans and scores: one statement each for the rows, the
    spans and the scores of them all (rows in key order, so two samplers take locks in one order).
    False for a trace another sampler inserted meanwhile: the caller merges that part
    (:func:`store_part`). The caller commits."""
    if not traces:
        return []
    ordered = sorted(traces, key=lambda t: (t.record.project_id, t.record.trace_id))
    await lock_traces(session, [(t.record.project_id, t.record.trace_id) for t in ordered])
    now = utcnow()
    rows = [_new_row(t.record) | {"stored_at": now, "updated_at": now} for t in ordered]
    written = await insert_rows(
        session, Trace, rows, conflict=TRACE_KEY, returning=("id", "project_id", "trace_id")
    )
    pks = {(project, trace): pk for pk, project, trace in written}
    inserted = [(t, pks.get((t.record.project_id, t.record.trace_id))) for t in traces]
    groups = GroupJSON()
    spans = [
        {"trace_pk": pk, "day": day, "span_id": span.span_id, "span": groups.with_span(group, span)}
        for t, pk in inserted
        if pk is not None
        for day in [trace_day(t.record.started_at)]
        for group, span in t.part.unique_spans()
    ]
    await insert_rows(session, TraceSpan, spans, conflict=SPAN_KEY)
    stored = [(t, pk) for t, pk in inserted if pk is not None]
    evaluating = asyncio.Semaphore(EVALUATE_AT_ONCE)

    async def evaluate(t: NewTrace) -> list[Evaluation]:
        async with evaluating:
            return await evaluate_trace(registry, t.specs, t.record)

    evaluations = await asyncio.gather(*(evaluate(t) for t, _ in stored))
    await _upsert_scores(
        session,
        [
            row
            for (t, pk), found in zip(stored, evaluations, strict=True)
            for row in _score_rows(pk, trace_day(t.record.started_at), t.record, found)
        ],
    )
    return [pk is not None for _, pk in inserted]


async def store_part(
    session: AsyncSession,
    registry: EvaluatorRegistry,
    part: TracePart,
    specs: list[EvaluatorSpec],
    existing: Trace | None,
    record: TraceRecord | None = None,
    days: Days | None = None,
) -> Stored:
    """Store a part of a sampled trace (``existing``: the locked row, when already stored;
    ``record``: the part's record, when the caller has it already; ``days``: where it was looked up)."""
    spans = part.unique_spans()
    if existing is None:
        record = record or part.record()
        trace_pk = await _insert_row(session, record)
        if trace_pk is None:  # another sampler stored its first part meanwhile: merge into it
            existing = await _locked(session, part.project_id, part.trace_id, days)
            assert existing is not None, "a conflicting trace row is visible once its insert committed"
        else:
            day = trace_day(record.started_at)
            await _insert_spans(session, trace_pk, day, spans)
            await _score(session, registry, trace_pk, day, record, specs)
            return "stored"
    if await _insert_spans(session, existing.id, existing.day, spans) == 0:
        return "duplicate"
    every = await stored_spans(session, existing.id, existing.day)
    has_root = any(span.parent_span_id is None for _, span in every)
    completeness = Completeness.ROOT_ENDED if has_root else part.completeness
    record = trace_record(part.project_id, every, completeness)
    for column, value in _columns(record).items():
        setattr(existing, column, value)
    existing.updated_at = utcnow()
    await session.flush()
    await _score(session, registry, existing.id, existing.day, record, specs)
    return "merged"
