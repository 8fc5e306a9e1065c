"""Backfill jobs run in the coordinator: each job goes through its window's stored traces a batch
at a time (in trace-row order, from its cursor), runs its evaluators on each trace's record, writes
the scores not present yet, and records its progress after every batch (one transaction per batch).

A job left running by a stopped coordinator is resumed from its cursor at start; a batch
interrupted midway is simply done again (writing is idempotent). An evaluator that raises is a
recorded failure for that trace (no value, the error kept), never a failed job; a job fails only
when the database does, with the error recorded."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.coordinator.traces.store.backfills import (
    insert_scores,
    next_traces,
    present_metrics,
    record_failure,
    record_progress,
    running_backfills,
)
from shared.db.base import utcnow
from shared.db.trace_models import Trace, TraceBackfill
from shared.evaluators import EvaluatorRegistry
from shared.online.trace_scoring import evaluate_trace
from yardstick.api.evaluation import Evaluation

log = logging.getLogger(__name__)

BATCH = 100
CONCURRENCY = 8


@dataclass
class _Tally:
    written: int = 0
    kept: int = 0
    measured_none: int = 0
    reasons: dict[str, str] = field(default_factory=dict)

    def add(self, evaluations: list[Evaluation], inserted: set[str]) -> None:
        self.written += len(inserted)
        self.kept += len(evaluations) - len(inserted)
        for e in evaluations:
            if e.name in inserted and e.numeric is None:
                self.measured_none += 1
                self.reasons.setdefault(e.name, e.error or e.comment or "the evaluator returned no value")


class BackfillRunner:
    def __init__(self, sessions: async_sessionmaker[AsyncSession], registry: EvaluatorRegistry) -> None:
        self._sessions = sessions
        self._registry = registry
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._evaluating = asyncio.Semaphore(CONCURRENCY)

    def submit(self, job_id: str) -> None:
        if job_id not in self._tasks or self._tasks[job_id].done():
            self._tasks[job_id] = asyncio.create_task(self._run(job_id), name=f"backfill-{job_id}")

    async def resume(self) -> None:
        async with self._sessions() as session:
            for job_id in await running_backfills(session):
                self.submit(job_id)

    async def wait(self, job_id: str) -> None:
        """Until the job's task (in this process) ends: for tests."""
        task = self._tasks.get(job_id)
        if task is not None:
            await asyncio.shield(task)

    async def stop(self) -> None:
        for task in self._tasks.values():
            task.cancel()
        for task in self._tasks.values():
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def _run(self, job_id: str) -> None:
        try:
            while await self._batch(job_id):
                pass
        except Exception as exc:
            log.exception("backfill %s failed", job_id)
            async with self._sessions() as session:
                await record_failure(session, job_id, f"{type(exc).__name__}: {exc}", utcnow())
                await session.commit()

    async def _batch(self, job_id: str) -> bool:
        """One batch of traces scored and the job's progress recorded; False once the job is over."""
        async with self._sessions() as session:
            job = await session.get(TraceBackfill, job_id, with_for_update=True)
            if job is None or job.status != "running":
                return False
            traces = await next_traces(session, job, BATCH)
            declared = self._declared(job)
            present = await present_metrics(session, [t.id for t in traces])
            tally = _Tally()
            todo = []
            for trace in traces:
                if declared and declared <= present[trace.id]:
                    tally.kept += len(declared)  # every metric already there: nothing to evaluate
                else:
                    todo.append(trace)
            scored = await asyncio.gather(*(self._evaluate(job, trace) for trace in todo))
            for trace, evaluations in zip(todo, scored, strict=True):
                tally.add(evaluations, await insert_scores(session, trace, evaluations))
            await record_progress(
                session,
                job,
                cursor=traces[-1].id if traces else job.cursor,
                done=len(traces),
                written=tally.written,
                kept=tally.kept,
                not_measured=tally.reasons,
                measured_none=tally.measured_none,
                finished=len(traces) < BATCH,
            )
            await session.commit()
        log.info("backfill %s: %d traces, %d scores written", job_id, len(traces), tally.written)
        return len(traces) == BATCH

    def _declared(self, job: TraceBackfill) -> set[str]:
        """The metric names the evaluators declare, when every one declares them (else: empty)."""
        names: set[str] = set()
        for spec in job.spec.evaluators:
            metrics = self._registry.metric_specs([spec])
            if not metrics:
                return set()
            names |= set(metrics)
        return names

    async def _evaluate(self, job: TraceBackfill, trace: Trace) -> list[Evaluation]:
        record = trace.record
        async with self._evaluating:
            return await evaluate_trace(self._registry, job.spec.evaluators, record)
