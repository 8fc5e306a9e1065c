"""``judge: {...}`` of a comparison: every matched ok pair of the two runs judged by
``llm_pairwise`` in both orders (see :mod:`shared.evaluators.pairwise`), ``gate`` bounding the pairs
judged at once (the coordinator shares one gate across all comparisons, so the provider sees a
bounded number of requests), the verdicts through the project's judge cache."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from sqlalchemy import and_, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm import aliased

from shared.analysis import pairwise_result
from shared.db.judge_verdicts import ProjectVerdicts
from shared.db.models import ExperimentItem
from shared.evaluators.judge_cache import HIT, judge_cache_in_use
from shared.evaluators.pairwise import LLM_PAIRWISE_VERSION, PairVerdict, judge_pair, outcome_for_candidate
from shared.llm.prices import configured_prices, item_usage_rows, spend_of
from yardstick.api.evaluation import Evaluation
from yardstick.api.pairwise import PairJudgement, PairwiseJudgeSpec, PairwiseResult


@dataclass
class JudgingTally:
    """What the judging has done so far (read by the progress writer)."""

    total: int = 0
    done: int = 0
    judge_cache_hits: int = 0
    llm_requests: int = 0
    llm_retries: int = 0

    def add(self, verdict: PairVerdict) -> None:
        self.done += 1
        for e in (verdict.a_first, verdict.b_first):
            meta = e.metadata or {}
            self.judge_cache_hits += meta.get("judge_cache") == HIT
            self.llm_requests += int(meta.get("llm_requests") or 0)
            self.llm_retries += int(meta.get("retries") or 0)


Progress = Callable[[JudgingTally], Awaitable[None]]


async def _pairs(
    session: AsyncSession, baseline_id: str, candidate_id: str, limit: int
) -> list[tuple[str, int, object, object, object]]:
    b, c = aliased(ExperimentItem), aliased(ExperimentItem)
    stmt = (
        select(b.item_id, b.trial, b.input, b.output, c.output)
        .join(c, and_(c.experiment_id == candidate_id, c.item_id == b.item_id, c.trial == b.trial))
        .where(b.experiment_id == baseline_id, b.status == "ok", c.status == "ok")
        .order_by(b.item_id, b.trial)
        .limit(limit)
    )
    return [tuple(row) for row in (await session.execute(stmt)).all()]  # type: ignore[misc]


async def judge_runs(
    sessions: async_sessionmaker[AsyncSession],
    project: str,
    baseline_id: str,
    candidate_id: str,
    spec: PairwiseJudgeSpec,
    gate: asyncio.Semaphore,
    progress: Progress | None = None,
) -> PairwiseResult:
    """Win/tie/loss of the candidate over the baseline on their matched ok items (item order); the
    single-order verdicts go through ``project``'s judge cache (unless the spec turns it off), so
    judging again, or the other way round, asks nothing again. ``progress`` is awaited after the
    pairs are counted and after each pair."""
    async with sessions() as session:
        rows = await _pairs(session, baseline_id, candidate_id, spec.max_pairs)
    tally = JudgingTally(total=len(rows))
    if progress is not None:
        await progress(tally)

    async def one(item_id: str, trial: int, input: object, base: object, cand: object) -> PairVerdict:
        async with gate:
            verdict = await judge_pair(spec, input, cand, base)  # the candidate is side A
        tally.add(verdict)
        if progress is not None:
            await progress(tally)
        return verdict

    store = ProjectVerdicts(sessions, project) if spec.judge_cache else None
    with judge_cache_in_use(store):
        verdicts = await asyncio.gather(*(one(*row) for row in rows))
    judgements = [
        PairJudgement(
            item_id=row[0],
            trial=row[1],
            outcome=outcome_for_candidate(v),
            reasons=[e.comment or "" for e in (v.a_first, v.b_first)],
        )
        for row, v in zip(rows, verdicts, strict=True)
    ]
    evaluations: list[Evaluation] = [e for v in verdicts for e in (v.a_first, v.b_first)]
    usage = [
        r for r in item_usage_rows(None, False, evaluations) if r.calls or r.input_tokens or r.output_tokens
    ]
    spend = spend_of(usage, configured_prices()) if usage else None
    result = pairwise_result(spec, LLM_PAIRWISE_VERSION, judgements, sum(not v.consistent for v in verdicts))
    return result.model_copy(
        update={
            "llm_requests": tally.llm_requests,
            "llm_retries": tally.llm_retries,
            "judge_cache_hits": tally.judge_cache_hits,
            "spend": spend,
        }
    )
