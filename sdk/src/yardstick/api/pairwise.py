"""The result of judging two runs side by side (``llm_pairwise``), stored in a comparison report."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from yardstick.api.spend import Spend

PairOutcome = Literal["candidate", "baseline", "tie", "not_measured"]


class PairwiseJudgeSpec(BaseModel, frozen=True):
    """``judge: {...}`` of ``POST /comparisons``: which is better, by the user's criteria."""

    criteria: str = Field(
        default="Which output answers the input better: correct, complete and clear.",
        min_length=1,
        max_length=4000,
        description="What 'better' means, in words",
    )
    judge_model: str | None = Field(default=None, max_length=200, description="Default: JUDGE_MODEL")
    judge_provider: Literal["auto", "mistral", "openai", "offline"] | None = None
    temperature: float = Field(default=0.0, ge=0, le=2)
    max_pairs: int = Field(default=500, ge=1, le=5000, description="Judge at most this many pairs")
    judge_cache: bool = Field(
        default=True,
        description="Reuse verdicts from the project's judge cache (and store new ones); false: ask "
        "the model for every pair",
    )


class PairJudgement(BaseModel):
    item_id: str
    trial: int
    outcome: PairOutcome
    reasons: list[str] = Field(default_factory=list, description="The judge's reason in each order")


class Rate(BaseModel):
    count: int
    rate: float | None
    ci_low: float | None
    ci_high: float | None


class PairwiseResult(BaseModel):
    """Win/tie/loss of the candidate against the baseline, each pair judged in both orders.

    A pair is a win (or a loss) only when both orders agree; when they disagree (position bias) it
    is a tie. Rates are over the measured pairs, with Wilson intervals."""

    judge: PairwiseJudgeSpec
    prompt_version: str
    pairs: int = Field(description="Pairs judged (at most max_pairs)")
    measured: int = Field(description="Pairs whose two orders both gave a verdict")
    inconsistent: int = Field(description="Measured pairs whose two orders disagreed (counted as ties)")
    wins: Rate = Field(description="The candidate's output judged better in both orders")
    ties: Rate
    losses: Rate = Field(description="The baseline's output judged better in both orders")
    judgements: list[PairJudgement] = Field(default_factory=list)
    llm_requests: int = Field(default=0, description="Requests sent to the judge model (retries included)")
    llm_retries: int = Field(
        default=0, description="Of those, retries (5xx, 429, timeouts, unparsable replies)"
    )
    judge_cache_hits: int = Field(default=0, description="Single-order verdicts served by the judge cache")
    spend: Spend | None = Field(default=None, description="Tokens and cost of the judge's calls")


JudgingStatus = Literal["judging", "done", "failed"]


class PairwiseJudging(BaseModel):
    """The pairwise judging of a comparison (``comparisons.judging``), run in the background: the
    judge asked, where it is, and what went wrong when it failed. The result lands in the report's
    ``pairwise`` when ``status`` is ``done``."""

    judge: PairwiseJudgeSpec
    status: JudgingStatus = "judging"
    total: int | None = Field(default=None, description="Pairs to judge (None until counted)")
    done: int = Field(default=0, description="Pairs judged so far (both orders)")
    judge_cache_hits: int = Field(default=0, description="Single-order verdicts served by the judge cache")
    llm_requests: int = Field(default=0, description="Requests sent to the judge model so far")
    error: str | None = Field(default=None, description="Why the judging failed (status failed)")
    started_at: datetime | None = None
    finished_at: datetime | None = None
