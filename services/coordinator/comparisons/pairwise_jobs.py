"""Judged comparisons in the background: ``POST /comparisons`` with ``judge: {...}`` stores the
statistical comparison at once with ``judging.status = "judging"`` and hands its id here; the pairs
are judged in this process (a few at a time across all comparisons: one gate towards the judge's
provider), progress is written to ``comparisons.judging`` about once a second, and the result lands
in the report's ``pairwise`` with ``status = "done"`` (or ``"failed"`` with the reason).

A coordinator that stops mid-judging leaves ``"judging"`` behind; the next one resumes those
comparisons at start (:meth:`PairwiseJobs.resume_interrupted`), and the verdicts judged before the
stop come from the judge cache, so nothing is paid twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.coordinator.comparisons.pairwise_judging import JudgingTally, judge_runs
from shared.db.base import utcnow
from shared.db.models import Comparison
from yardstick.api.pairwise import PairwiseJudging

log = logging.getLogger(__name__)

PROGRESS_EVERY_S = 1.0
"""Progress is written at most this often (and always when the judging ends)."""


class PairwiseJobs:
    def __init__(self, sessions: async_sessionmaker[AsyncSession], pairs_at_once: int) -> None:
        self._sessions = sessions
        self._gate = asyncio.Semaphore(pairs_at_once)
        self._running: dict[str, asyncio.Task[None]] = {}

    def submit(self, comparison_id: str) -> None:
        """Judge the comparison's pairs (once: a comparison already being judged is left alone)."""
        if comparison_id in self._running:
            return
        task = asyncio.create_task(self._judge(comparison_id), name=f"pairwise-{comparison_id}")
        self._running[comparison_id] = task
        task.add_done_callback(lambda _: self._running.pop(comparison_id, None))

    async def resume_interrupted(self) -> None:
        """Comparisons left ``judging`` by a coordinator that stopped are judged again."""
        async with self._sessions() as session:
            ids = (
                await session.scalars(
                    select(Comparison.id).where(Comparison.judging["status"].astext == "judging")
                )
            ).all()
        for comparison_id in ids:
            log.info("resuming pairwise judging", extra={"comparison_id": comparison_id})
            self.submit(comparison_id)

    async def stop(self) -> None:
        for task in list(self._running.values()):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def _save(self, comparison_id: str, judging: PairwiseJudging, **report_update: object) -> None:
        async with self._sessions() as session:
            row = await session.get(Comparison, comparison_id)
            if row is None:  # deleted meanwhile
                return
            row.judging = judging
            if report_update:
                row.report = row.report.model_copy(update=report_update)
            await session.commit()

    async def _judge(self, comparison_id: str) -> None:
        async with self._sessions() as session:
            row = await session.get(Comparison, comparison_id)
            if row is None or row.judging is None:
                return
            judging = row.judging.model_copy(update={"started_at": utcnow()})
            project, baseline_id, candidate_id = row.project_id, row.baseline_id, row.candidate_id
        last_write = 0.0
        writing = asyncio.Lock()  # one progress write at a time, each with the latest figures

        def progressed(tally: JudgingTally) -> PairwiseJudging:
            return judging.model_copy(
                update={
                    "total": tally.total,
                    "done": tally.done,
                    "judge_cache_hits": tally.judge_cache_hits,
                    "llm_requests": tally.llm_requests,
                }
            )

        async def write_progress(tally: JudgingTally) -> None:
            nonlocal last_write
            if tally.done < tally.total and tally.done and time.monotonic() - last_write < PROGRESS_EVERY_S:
                return
            async with writing:
                last_write = time.monotonic()
                await self._save(comparison_id, progressed(tally))

        try:
            result = await judge_runs(
                self._sessions, project, baseline_id, candidate_id, judging.judge, self._gate, write_progress
            )
        except asyncio.CancelledError:
            raise  # the coordinator stops: the next one resumes
        except Exception as exc:
            log.exception("pairwise judging failed", extra={"comparison_id": comparison_id})
            failed = judging.model_copy(
                update={"status": "failed", "error": f"{type(exc).__name__}: {exc}", "finished_at": utcnow()}
            )
            await self._save(comparison_id, failed)
            return
        done = judging.model_copy(
            update={
                "status": "done",
                "total": result.pairs,
                "done": result.pairs,
                "judge_cache_hits": result.judge_cache_hits,
                "llm_requests": result.llm_requests,
                "finished_at": utcnow(),
            }
        )
        await self._save(comparison_id, done, pairwise=result)
        log.info(
            "pairwise judging done",
            extra={"comparison_id": comparison_id, "pairs": result.pairs, "requests": result.llm_requests},
        )
