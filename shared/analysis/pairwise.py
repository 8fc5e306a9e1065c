"""Win/tie/loss rates of a pairwise judgement, with Wilson intervals (they stay in [0, 1])."""

from __future__ import annotations

from collections.abc import Sequence

from shared.analysis.stats.descriptive import wilson_bounds
from yardstick.api.pairwise import PairJudgement, PairwiseJudgeSpec, PairwiseResult, Rate


def _rate(k: int, n: int, confidence: float) -> Rate:
    if n == 0:
        return Rate(count=k, rate=None, ci_low=None, ci_high=None)
    low, high = wilson_bounds(k, n, confidence)
    return Rate(count=k, rate=k / n, ci_low=low, ci_high=high)


def pairwise_result(
    spec: PairwiseJudgeSpec,
    prompt_version: str,
    judgements: Sequence[PairJudgement],
    inconsistent: int,
    confidence: float = 0.95,
) -> PairwiseResult:
    measured = [j for j in judgements if j.outcome != "not_measured"]
    n = len(measured)
    count = {o: sum(j.outcome == o for j in measured) for o in ("candidate", "tie", "baseline")}
    return PairwiseResult(
        judge=spec,
        prompt_version=prompt_version,
        pairs=len(judgements),
        measured=n,
        inconsistent=inconsistent,
        wins=_rate(count["candidate"], n, confidence),
        ties=_rate(count["tie"], n, confidence),
        losses=_rate(count["baseline"], n, confidence),
        judgements=list(judgements),
    )
