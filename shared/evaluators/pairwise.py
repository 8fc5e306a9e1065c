"""``llm_pairwise``: which of two outputs for the same input is better, judged in both orders.

Each pair is asked twice, the outputs swapped: A shown first, then B shown first. A side wins only
when both orders prefer it; when the orders disagree (the judge preferred a position, not an
output) the pair is a tie, so position bias cancels. Each single-order verdict goes through
:func:`~shared.evaluators.judging.run_judge` (prompt versioned, usage recorded, "not measured" on
trouble, judge cache keyed by the content in that order). Which run is called A does not matter:
the two prompts are the same pair of prompts either way.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field

from shared.evaluators.judging import Judging, run_judge
from yardstick.api.evaluation import Evaluation
from yardstick.api.pairwise import PairOutcome, PairwiseJudgeSpec

LLM_PAIRWISE_VERSION = "llm-pairwise-v1"
RENDERED_CHARS = 6000


class PairChoice(BaseModel):
    reason: str = Field(description="Why, referring to the criteria")
    better: Literal["first", "second", "tie"] = Field(description="Which output is better")


def _render(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text[:RENDERED_CHARS]


def pairwise_prompt(criteria: str, input: Any, first: Any, second: Any) -> str:
    return (
        "Two AI systems answered the same input. Decide which output is better by the criteria below; "
        "say tie only when neither is better. The order in which they are shown means nothing.\n\n"
        f"Criteria:\n{criteria}\n\nInput:\n{_render(input)}\n\n"
        f"First output:\n{_render(first)}\n\nSecond output:\n{_render(second)}"
    )


_VALUE = {"first": 1.0, "tie": 0.5, "second": 0.0}


async def judge_order(spec: PairwiseJudgeSpec, input: Any, first: Any, second: Any) -> Evaluation:
    """One order: value 1 (first better), 0.5 (tie), 0 (second better) or None (not measured)."""

    async def body(j: Judging) -> Evaluation:
        choice = await j.ask(PairChoice, pairwise_prompt(spec.criteria, input, first, second))
        return j.result(_VALUE[choice.better], choice.reason or None, better=choice.better)

    return await run_judge(
        "llm_pairwise",
        LLM_PAIRWISE_VERSION,
        body,
        judge_model=spec.judge_model,
        judge_provider=spec.judge_provider,
        temperature=spec.temperature,
        args={"criteria": spec.criteria},
        content={"input": input, "first": first, "second": second},
    )


@dataclass(frozen=True)
class PairVerdict:
    """The outcome for side A against side B, and the two single-order evaluations."""

    a_over_b: Literal["a", "b", "tie", "not_measured"]
    consistent: bool
    a_first: Evaluation
    b_first: Evaluation


def combine(a_first: Evaluation, b_first: Evaluation) -> PairVerdict:
    """A wins only when both orders prefer A; disagreeing orders are a tie."""
    x, y = a_first.numeric, b_first.numeric
    if x is None or y is None:
        return PairVerdict("not_measured", True, a_first, b_first)
    pref_a = (x, 1.0 - y)  # how much each order preferred A
    if all(p > 0.5 for p in pref_a):
        return PairVerdict("a", True, a_first, b_first)
    if all(p < 0.5 for p in pref_a):
        return PairVerdict("b", True, a_first, b_first)
    return PairVerdict("tie", pref_a[0] == pref_a[1], a_first, b_first)


async def judge_pair(spec: PairwiseJudgeSpec, input: Any, a: Any, b: Any) -> PairVerdict:
    """Both orders of one pair, sequentially (one judge request at a time per pair)."""
    a_first = await judge_order(spec, input, a, b)
    b_first = await judge_order(spec, input, b, a)
    return combine(a_first, b_first)


def outcome_for_candidate(verdict: PairVerdict) -> PairOutcome:
    """With the candidate as side A."""
    return {"a": "candidate", "b": "baseline", "tie": "tie", "not_measured": "not_measured"}[verdict.a_over_b]  # type: ignore[return-value]
