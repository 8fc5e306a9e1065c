"""Backfill jobs' rows: a job created over a window of stored traces, its traces read a batch at a
time in id order, their scores written idempotently, its progress and tallies updated.

Idempotent: a score is inserted only when the trace has none of that name (``ON CONFLICT DO
NOTHING`` on (trace, name)); a score already there, from the sampler or an earlier backfill, is kept
as it is. A trace that already has every metric the evaluators declare is not evaluated again.
Background work: the sessions here are unscoped, and every row names its project explicitly."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import ColumnElement, func, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from services.coordinator.errors import CoordinatorError
from shared.db.base import utcnow
from shared.db.outcome_rows import stored_trace_score_rows
from shared.db.trace_models import Trace, TraceBackfill, TraceScore
from shared.online.backfill_spec import BackfillSpec
from yardstick.api.evaluation import Evaluation


class BackfillNotFound(CoordinatorError):
    status_code = 404


def _window(project_id: str, spec: BackfillSpec) -> list[ColumnElement[bool]]:
    where: list[ColumnElement[bool]] = [
        Trace.project_id == project_id,
        Trace.started_at >= spec.since,
        Trace.started_at < spec.until,
    ]
    if spec.application is not None:
        where.append(Trace.application == spec.application)
    return where


async def create_backfill(session: AsyncSession, project_id: str, spec: BackfillSpec) -> TraceBackfill:
    """The job, its total the traces in the window now. The caller commits."""
    total = (
        await session.execute(select(func.count()).select_from(Trace).where(*_window(project_id, spec)))
    ).scalar_one()
    job = TraceBackfill(
        project_id=project_id, spec=spec, total=total, status="done" if total == 0 else "running"
    )
    if total == 0:
        job.finished_at = utcnow()
    session.add(job)
    await session.flush()
    return job


async def find_backfill(session: AsyncSession, job_id: str) -> TraceBackfill:
    job = await session.get(TraceBackfill, job_id)
    if job is None:
        raise BackfillNotFound(
            f"backfill {job_id} not found in this project; start one: POST /traces/backfill"
        )
    return job


async def running_backfills(session: AsyncSession) -> list[str]:
    """Jobs a stopped coordinator left running (resumed from their cursor at start)."""
    stmt = (
        select(TraceBackfill.id).where(TraceBackfill.status == "running").order_by(TraceBackfill.created_at)
    )
    return list((await session.execute(stmt)).scalars())


async def next_traces(session: AsyncSession, job: TraceBackfill, limit: int) -> Sequence[Trace]:
    stmt = (
        select(Trace)
        .where(*_window(job.project_id, job.spec), Trace.id > job.cursor)
        .order_by(Trace.id)
        .limit(limit)
    )
    return list((await session.execute(stmt)).scalars())


async def present_metrics(session: AsyncSession, trace_pks: list[int]) -> dict[int, set[str]]:
    """The score names each trace already has."""
    present: dict[int, set[str]] = {pk: set() for pk in trace_pks}
    stmt = select(TraceScore.trace_pk, TraceScore.name).where(TraceScore.trace_pk.in_(trace_pks))
    for trace_pk, name in (await session.execute(stmt)).all():
        present[trace_pk].add(name)
    return present


async def insert_scores(session: AsyncSession, trace: Trace, evaluations: list[Evaluation]) -> set[str]:
    """Insert the scores the trace does not have yet; the names of those that were new."""
    if not evaluations:
        return set()
    rows = stored_trace_score_rows(trace, evaluations)
    stmt = (
        insert(TraceScore)
        .on_conflict_do_nothing(index_elements=["trace_pk", "name", "day"])
        .returning(TraceScore.name)
    )
    return set((await session.execute(stmt, rows)).scalars().all())


async def record_progress(
    session: AsyncSession,
    job: TraceBackfill,
    *,
    cursor: int,
    done: int,
    written: int,
    kept: int,
    not_measured: dict[str, str],
    measured_none: int,
    finished: bool,
) -> None:
    """Add a batch's tallies to the job (and mark it done after its last batch). The caller commits."""
    spec = job.spec.model_copy(update={"not_measured": {**not_measured, **job.spec.not_measured}})
    values: dict[str, object] = {
        "cursor": cursor,
        "done": TraceBackfill.done + done,
        "written": TraceBackfill.written + written,
        "kept": TraceBackfill.kept + kept,
        "not_measured": TraceBackfill.not_measured + measured_none,
        "spec": spec,
        "updated_at": utcnow(),
    }
    if finished:
        values |= {"status": "done", "finished_at": utcnow()}
    await session.execute(update(TraceBackfill).where(TraceBackfill.id == job.id).values(**values))


async def record_failure(session: AsyncSession, job_id: str, error: str, at: datetime) -> None:
    stmt = (
        update(TraceBackfill)
        .where(TraceBackfill.id == job_id)
        .values(status="failed", error=error[:2000], finished_at=at, updated_at=at)
    )
    await session.execute(stmt)
