"""``judge: {...}`` of a comparison: every matched ok pair of the two runs judged by
``llm_pairwise`` in both orders (see :mod:`shared.evaluators.pairwise`), a few pairs at a time,
in the coordinator's process while the comparison is created."""

from __future__ import annotations

import asyncio

from sqlalchemy import and_, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm import aliased

from shared.analysis.pairwise import pairwise_result
from shared.contracts.pairwise import PairJudgement, PairwiseJudgeSpec, PairwiseResult
from shared.db.judge_verdicts import ProjectVerdicts
from shared.db.models import ExperimentItem
from shared.evaluators.judge_cache import judge_cache_in_use
from shared.evaluators.pairwise import LLM_PAIRWISE_VERSION, judge_pair, outcome_for_candidate

PAIRS_AT_ONCE = 4


async def judge_runs(
    session: AsyncSession, project: str, baseline_id: str, candidate_id: str, spec: PairwiseJudgeSpec
) -> PairwiseResult:
    """Win/tie/loss of the candidate over the baseline on their matched ok items (item order); the
    single-order verdicts go through ``project``'s judge cache."""
    b, c = aliased(ExperimentItem), aliased(ExperimentItem)
    stmt = (
        select(b.item_id, b.trial, b.input, b.output, c.output)
        .join(c, and_(c.experiment_id == candidate_id, c.item_id == b.item_id, c.trial == b.trial))
        .where(b.experiment_id == baseline_id, b.status == "ok", c.status == "ok")
        .order_by(b.item_id, b.trial)
        .limit(spec.max_pairs)
    )
    rows = (await session.execute(stmt)).all()
    gate = asyncio.Semaphore(PAIRS_AT_ONCE)

    async def one(
        item_id: str, trial: int, input: object, base: object, cand: object
    ) -> tuple[PairJudgement, bool]:
        async with gate:
            verdict = await judge_pair(spec, input, cand, base)  # the candidate is side A
        reasons = [e.comment or "" for e in (verdict.a_first, verdict.b_first)]
        judgement = PairJudgement(
            item_id=item_id, trial=trial, outcome=outcome_for_candidate(verdict), reasons=reasons
        )
        return judgement, not verdict.consistent

    verdicts = ProjectVerdicts(async_sessionmaker(session.bind, expire_on_commit=False), project)
    with judge_cache_in_use(verdicts):  # comparing the other way round asks nothing again
        done = await asyncio.gather(*(one(*row) for row in rows))
    inconsistent = sum(flag for _, flag in done)
    return pairwise_result(spec, LLM_PAIRWISE_VERSION, [j for j, _ in done], inconsistent)
