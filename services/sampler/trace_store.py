"""Store a sampled trace, merge its late parts, and score it, exactly once whatever the redelivery.

- The trace row is unique per (project, trace id); its spans are unique per (trace, span id).
- A first part inserts the row, its spans and its scores.
- A later part (or a redelivered one) inserts only the spans not stored yet. None new: nothing
  changes (a redelivery). Some new: the record is rebuilt from every stored span and the scores are
  computed again and replaced, so they describe the whole trace.
- The row is locked (``FOR UPDATE``) while a part is merged: two samplers holding parts of one
  trace merge one after the other.

The caller commits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Literal

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from shared.contracts.evaluation import Evaluation, EvaluatorSpec
from shared.contracts.span_messages import ResourceSpans, Span
from shared.db.base import utcnow
from shared.db.trace_models import UNKNOWN_MODEL, Trace, TraceScore, TraceSpan
from shared.evaluators import EvaluatorRegistry, run_item_evaluators
from shared.online.trace_payload import evaluation_input, evaluation_metadata, evaluation_output
from shared.traces import Completeness, TraceRecord, trace_record

Stored = Literal["stored", "merged", "duplicate"]


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


async def _locked(session: AsyncSession, project_id: str, trace_id: str) -> Trace | None:
    stmt = (
        select(Trace)
        .where(Trace.project_id == project_id, Trace.trace_id == trace_id)
        .with_for_update()
        .execution_options(populate_existing=True)
    )
    return (await session.execute(stmt)).scalar_one_or_none()


async def stored_trace(session: AsyncSession, project_id: str, trace_id: str) -> Trace | None:
    """The stored trace, locked until the transaction ends (None when it is not stored)."""
    return await _locked(session, project_id, trace_id)


async def _insert_row(session: AsyncSession, record: TraceRecord) -> int | None:
    stmt = (
        insert(Trace)
        .values(project_id=record.project_id, trace_id=record.trace_id, **_columns(record))
        .on_conflict_do_nothing(index_elements=["project_id", "trace_id"])
        .returning(Trace.id)
    )
    return (await session.execute(stmt)).scalar_one_or_none()


async def _insert_spans(session: AsyncSession, trace_pk: int, spans: list[tuple[ResourceSpans, Span]]) -> int:
    """Insert the spans not stored yet; how many were new."""
    if not spans:
        return 0
    rows = [
        {
            "trace_pk": trace_pk,
            "span_id": span.span_id,
            "span": group.model_copy(update={"spans": [span]}),
        }
        for group, span in spans
    ]
    stmt = (
        insert(TraceSpan)
        .on_conflict_do_nothing(index_elements=["trace_pk", "span_id"])
        .returning(TraceSpan.span_id)
    )
    return len((await session.execute(stmt, rows)).scalars().all())


async def stored_spans(session: AsyncSession, trace_pk: int) -> list[tuple[ResourceSpans, Span]]:
    stmt = select(TraceSpan.span).where(TraceSpan.trace_pk == trace_pk).order_by(TraceSpan.id)
    return [(group, group.spans[0]) for group in (await session.execute(stmt)).scalars()]


async def _score(
    session: AsyncSession,
    registry: EvaluatorRegistry,
    trace_pk: int,
    record: TraceRecord,
    specs: list[EvaluatorSpec],
) -> list[Evaluation]:
    evaluations = await run_item_evaluators(
        registry,
        specs,
        input=evaluation_input(record),
        output=evaluation_output(record),
        expected_output=None,
        metadata=evaluation_metadata(record),
    )
    if not evaluations:
        return evaluations
    rows = [
        {
            "project_id": record.project_id,
            "trace_pk": trace_pk,
            "name": e.name,
            "value": None if e.value is None else float(e.value),
            "comment": e.comment,
            "score_metadata": e.metadata,
            "error": e.error,
            "evaluator_version": e.evaluator_version or "1",
            "application": record.application[:200],
            "model": (record.model or UNKNOWN_MODEL)[:200],
            "trace_at": record.started_at,
        }
        for e in evaluations
    ]
    stmt = insert(TraceScore)
    stmt = stmt.on_conflict_do_update(
        index_elements=["trace_pk", "name"],
        set_={
            col: stmt.excluded[col]
            for col in ("value", "comment", "metadata", "error", "evaluator_version", "model", "trace_at")
        },
    )
    await session.execute(stmt, rows)
    return evaluations


async def store_part(
    session: AsyncSession,
    registry: EvaluatorRegistry,
    part: TracePart,
    specs: list[EvaluatorSpec],
    existing: Trace | None,
    record: TraceRecord | None = None,
) -> Stored:
    """Store a part of a sampled trace (``existing``: the locked row, when already stored;
    ``record``: the part's record, when the caller has it already)."""
    spans = part.unique_spans()
    if existing is None:
        record = record or part.record()
        trace_pk = await _insert_row(session, record)
        if trace_pk is None:  # another sampler stored its first part meanwhile: merge into it
            existing = await _locked(session, part.project_id, part.trace_id)
            assert existing is not None, "a conflicting trace row is visible once its insert committed"
        else:
            await _insert_spans(session, trace_pk, spans)
            await _score(session, registry, trace_pk, record, specs)
            return "stored"
    if await _insert_spans(session, existing.id, spans) == 0:
        return "duplicate"
    every = await stored_spans(session, existing.id)
    has_root = any(span.parent_span_id is None for _, span in every)
    completeness = Completeness.ROOT_ENDED if has_root else part.completeness
    record = trace_record(part.project_id, every, completeness)
    for column, value in _columns(record).items():
        setattr(existing, column, value)
    existing.updated_at = utcnow()
    await session.flush()
    await _score(session, registry, existing.id, record, specs)
    return "merged"
