"""The result of judging two runs side by side (``llm_pairwise``), stored in a comparison report."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

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
