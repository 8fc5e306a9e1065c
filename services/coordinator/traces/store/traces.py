"""Sampled traces as the API and the web UI read them (in a session scoped to the caller's project:
another project's trace is not found), and one trace added to a dataset as a version to review."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field
from sqlalchemy import ColumnElement, Select, and_, exists, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from services.coordinator.datasets.store import datasets as dataset_store
from services.coordinator.errors import CoordinatorError
from shared.db.trace_models import Trace, TraceScore
from shared.online.trace_payload import evaluation_input, evaluation_metadata, evaluation_output
from yardstick.api.datasets import DatasetCreate, DatasetItemIn, ItemsUpsert, UpsertResult
from yardstick.api.review import HUMAN_SOURCE
from yardstick.api.trace_record import TraceRecord
from yardstick.api.traces import ApplicationOut, TraceDetail, TracePage, TraceScoreOut, TraceSummary

TRACE_DATASET_KIND = "generic"
COUNT_UP_TO = 10_000
"""A list's ``total`` stops counting here (``total_capped``): an exact count of millions of traces
costs a scan of them all, where counting this many costs a few milliseconds whatever the filters."""
_BELOW = re.compile(r"^(?P<name>[A-Za-z0-9_.:/-]{1,100})=(?P<value>-?\d+(?:\.\d+)?)$")


class TraceNotFound(CoordinatorError):
    status_code = 404


class InvalidTraceQuery(CoordinatorError):
    status_code = 422


class AddToDatasetRefused(CoordinatorError):
    status_code = 409


class TraceInputUnreadable(CoordinatorError):
    """The trace has no input an item could hold (no message with content): nothing to evaluate."""

    status_code = 422


def readable_input(record: TraceRecord) -> bool:
    """Whether the record has an input message with text or tool calls."""
    return any(message.content or message.tool_calls for message in record.input_messages)


class ScoreBelow(BaseModel, frozen=True):
    """``below=EVALUATOR=VALUE``: traces whose score of EVALUATOR is under VALUE."""

    evaluator: str
    value: float

    @classmethod
    def parse(cls, text: str) -> ScoreBelow:
        match = _BELOW.match(text)
        if match is None:
            raise InvalidTraceQuery(
                f"below={text!r} is not EVALUATOR=VALUE: write e.g. below=tool_called=1 "
                "or below=llm_rubric=0.5"
            )
        return cls(evaluator=match["name"], value=float(match["value"]))


class TraceQuery(BaseModel, frozen=True):
    """The filters of ``GET /traces`` (every one that is set must match)."""

    service: str | None = None
    model: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    error: bool | None = None
    tool: str | None = None
    below: ScoreBelow | None = None
    limit: int = Field(default=50, ge=1, le=500)
    offset: int = Field(default=0, ge=0)

    def conditions(self) -> list[ColumnElement[bool]]:
        where: list[ColumnElement[bool]] = []
        if self.service is not None:
            where.append(Trace.application == self.service)
        if self.model is not None:
            where.append(Trace.model == self.model)
        if self.since is not None:
            where.append(Trace.started_at >= self.since)
        if self.until is not None:
            where.append(Trace.started_at < self.until)
        if self.error is not None:
            where.append(Trace.error.is_(self.error))
        if self.tool is not None:
            where.append(Trace.tool_names.contains([self.tool]))
        if self.below is not None:
            where.append(
                exists().where(
                    and_(
                        TraceScore.trace_pk == Trace.id,
                        TraceScore.day == Trace.day,
                        TraceScore.name == self.below.evaluator,
                        TraceScore.value < self.below.value,
                    )
                )
            )
        return where


def _summary(row: Trace, scores: dict[str, float | None]) -> TraceSummary:
    return TraceSummary(
        trace_id=row.trace_id,
        application=row.application,
        conversation_id=row.conversation_id,
        preview=str(evaluation_input(row.record)["query"])[:200],
        model=row.model,
        provider=row.provider,
        started_at=row.started_at,
        latency_ms=row.latency_ms,
        input_tokens=row.input_tokens,
        output_tokens=row.output_tokens,
        total_tokens=row.total_tokens,
        error=row.error,
        tool_names=list(row.tool_names),
        span_count=row.span_count,
        completeness=row.completeness,
        scores=scores,
    )


def _matching(query: TraceQuery, where: list[ColumnElement[bool]]) -> Select[Any]:
    """The rows to count for ``query``. A score filter alone is counted on the scores themselves (their
    ``(project_id, name, value)`` index): a trace has one score per name, so the count is the same,
    without probing millions of traces for their scores (measured: 1.1 s for 10 million spans against
    tens of milliseconds)."""
    below = query.below
    if below is not None and not query.model_copy(update={"below": None}).conditions():
        return select(TraceScore.trace_pk).where(
            TraceScore.name == below.evaluator, TraceScore.value < below.value
        )
    return select(Trace.id).where(*where)


async def list_traces(session: AsyncSession, query: TraceQuery) -> TracePage:
    where = query.conditions()
    matching = _matching(query, where).limit(COUNT_UP_TO + 1).subquery()
    counted = (await session.execute(select(func.count()).select_from(matching))).scalar_one()
    stmt = (
        select(Trace)
        .where(*where)
        .order_by(Trace.started_at.desc(), Trace.id.desc())
        .limit(query.limit)
        .offset(query.offset)
    )
    rows = list((await session.execute(stmt)).scalars())
    scores: dict[int, dict[str, float | None]] = {row.id: {} for row in rows}
    if rows:
        score_stmt = (
            select(TraceScore.trace_pk, TraceScore.name, TraceScore.value)
            .where(
                TraceScore.trace_pk.in_(list(scores)),
                TraceScore.day.in_(sorted({row.day for row in rows})),  # prunes the partitions
            )
            .order_by(TraceScore.name)
        )
        for trace_pk, name, value in (await session.execute(score_stmt)).all():
            scores[trace_pk][name] = value
    return TracePage(
        items=[_summary(row, scores[row.id]) for row in rows],
        total=min(counted, COUNT_UP_TO),
        total_capped=counted > COUNT_UP_TO,
        limit=query.limit,
        offset=query.offset,
    )


async def trace_by_pk(session: AsyncSession, trace_pk: int) -> Trace | None:
    """The trace of id ``trace_pk`` (ids are unique across the day partitions), None when it is gone
    (retention dropped it)."""
    return (await session.execute(select(Trace).where(Trace.id == trace_pk))).scalar_one_or_none()


async def _trace(session: AsyncSession, trace_id: str) -> Trace:
    row = (await session.execute(select(Trace).where(Trace.trace_id == trace_id))).scalar_one_or_none()
    if row is None:
        raise TraceNotFound(f"trace {trace_id} not found in this project; list sampled traces: GET /traces")
    return row


async def trace_detail(session: AsyncSession, trace_id: str) -> TraceDetail:
    row = await _trace(session, trace_id)
    stmt = (
        select(TraceScore)
        .where(TraceScore.trace_pk == row.id, TraceScore.day == row.day)
        .order_by(TraceScore.name)
    )
    scores = [
        TraceScoreOut(
            name=s.name,
            value=s.value,
            comment=s.comment,
            error=s.error,
            failure=s.failure,
            evaluator_version=s.evaluator_version,
            source=HUMAN_SOURCE if s.score_metadata.get("source") == HUMAN_SOURCE else "evaluator",
            metadata=s.score_metadata,
        )
        for s in (await session.execute(stmt)).scalars()
    ]
    summary = _summary(row, {s.name: s.value for s in scores})
    return TraceDetail(
        **summary.model_dump(), record=row.record, score_details=scores, updated_at=row.updated_at
    )


async def applications(session: AsyncSession) -> list[ApplicationOut]:
    stmt = (
        select(
            Trace.application,
            func.count(),
            func.count().filter(Trace.error.is_(True)),
            func.max(Trace.started_at),
        )
        .group_by(Trace.application)
        .order_by(Trace.application)
    )
    return [
        ApplicationOut(application=app, traces=n, errors=errors, last_at=last)
        for app, n, errors, last in (await session.execute(stmt)).all()
    ]


def trace_item(row: Trace) -> DatasetItemIn:
    """The trace as a dataset item to review: its input, and its own output as the draft expectation."""
    record = row.record
    output = evaluation_output(record)
    return DatasetItemIn(
        id=f"trace:{row.trace_id}",
        input=evaluation_input(record),
        expected_output={
            "response": output["response"],
            "tool_calls": [call["name"] for call in output["tool_calls"]],
        },
        metadata={
            **evaluation_metadata(record),
            "source": "production",
            "review_status": "needs_review",
            "started_at": record.started_at.isoformat(),
        },
    )


async def add_to_dataset(session: AsyncSession, trace_id: str, dataset_name: str) -> UpsertResult:
    """Add the trace to a generic dataset as a new version marked ``needs_review`` (runs that name no
    version keep the latest accepted one). A dataset of another kind is refused (409). The caller
    commits."""
    row = await _trace(session, trace_id)
    if not readable_input(row.record):
        why = "; ".join(row.record.notes) or "its spans carry no input messages"
        raise TraceInputUnreadable(
            f"trace {trace_id} has no readable input, so it cannot become a dataset item ({why}); "
            "see GET /traces/{trace_id} for what was read"
        )
    dataset = await dataset_store.find_dataset(session, dataset_name)
    if dataset is None:
        dataset = await dataset_store.create_or_get(
            session,
            DatasetCreate(name=dataset_name, description="Production traces", kind=TRACE_DATASET_KIND),
        )
    elif dataset.kind != TRACE_DATASET_KIND:
        raise AddToDatasetRefused(
            f"dataset {dataset_name!r} holds {dataset.kind} items; a trace becomes a {TRACE_DATASET_KIND} "
            "item: add it to a generic dataset or a new name"
        )
    return await dataset_store.upsert_items(
        session, dataset, ItemsUpsert(items=[trace_item(row)], source="production"), status="needs_review"
    )
