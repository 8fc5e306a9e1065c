"""``llm_pairwise``: both orders judged; a side wins only when both orders prefer it, a pair whose
orders disagree is a tie; which side is called A does not matter; Wilson intervals on the rates."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Literal, TypeVar

import pytest
from pydantic import BaseModel

from shared.analysis.pairwise import pairwise_result
from shared.evaluators.judge_model import set_judge_factory
from shared.evaluators.pairwise import combine, judge_pair, outcome_for_candidate
from shared.llm import LlmCallStats
from shared.llm.structured import StructuredReply
from yardstick.api.pairwise import PairJudgement, PairwiseJudgeSpec

pytestmark = pytest.mark.unit

T = TypeVar("T", bound=BaseModel)
SPEC = PairwiseJudgeSpec(criteria="Longer is better.", judge_provider="openai", judge_model="fake")


class FakeJudge:
    """Prefers the longer output (a fair judge), or always the first shown (position bias)."""

    def __init__(self, mode: Literal["longer", "first"]) -> None:
        self.mode = mode
        self.prompts: list[str] = []

    async def ask(self, schema: type[T], prompt: str) -> StructuredReply[T]:
        self.prompts.append(prompt)
        first, second = re.findall(r"(?:First|Second) output:\n(.*?)(?:\n\n|$)", prompt, re.DOTALL)[:2]
        if self.mode == "first":
            better = "first"
        else:
            better = (
                "tie" if len(first) == len(second) else ("first" if len(first) > len(second) else "second")
            )
        value = schema.model_validate({"reason": f"{self.mode}", "better": better})
        return StructuredReply(value=value, raw="{}", stats=LlmCallStats(requests=1, input_tokens=5))


@pytest.fixture
def judge(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeJudge]:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # never called: the fake answers
    fake = FakeJudge(getattr(request, "param", "longer"))
    previous = set_judge_factory(lambda config: fake)
    yield fake
    set_judge_factory(previous)


async def test_a_consistent_preference_wins_and_both_orders_are_asked(judge: FakeJudge) -> None:
    verdict = await judge_pair(SPEC, "q", "a long answer", "short")
    assert verdict.a_over_b == "a" and verdict.consistent
    assert len(judge.prompts) == 2
    assert judge.prompts[0].index("a long answer") < judge.prompts[0].index("short")
    assert judge.prompts[1].index("short") < judge.prompts[1].index("a long answer")
    assert outcome_for_candidate(verdict) == "candidate"


async def test_the_result_does_not_depend_on_which_side_is_named_first(judge: FakeJudge) -> None:
    pairs = [("q1", "aaaa", "bb"), ("q2", "c", "ddd"), ("q3", "ee", "ff")]
    ab = [(await judge_pair(SPEC, q, x, y)).a_over_b for q, x, y in pairs]
    ba = [(await judge_pair(SPEC, q, y, x)).a_over_b for q, x, y in pairs]
    swap = {"a": "b", "b": "a", "tie": "tie"}
    assert ab == ["a", "b", "tie"]
    assert [swap[v] for v in ab] == ba


@pytest.mark.parametrize("judge", ["first"], indirect=True)
async def test_a_judge_that_prefers_a_position_gives_ties(judge: FakeJudge) -> None:
    verdict = await judge_pair(SPEC, "q", "a long answer", "short")
    assert verdict.a_over_b == "tie" and not verdict.consistent


def test_combine_rules() -> None:
    from yardstick.api.evaluation import Evaluation

    def ev(value: float | None) -> Evaluation:
        return Evaluation(name="llm_pairwise", value=value)

    assert combine(ev(1.0), ev(0.0)).a_over_b == "a"
    assert combine(ev(0.0), ev(1.0)).a_over_b == "b"
    assert combine(ev(1.0), ev(1.0)).a_over_b == "tie"  # each order preferred the first shown
    assert not combine(ev(1.0), ev(1.0)).consistent
    assert combine(ev(0.5), ev(0.5)).consistent
    assert combine(ev(1.0), ev(0.5)).a_over_b == "tie"
    assert combine(ev(None), ev(0.0)).a_over_b == "not_measured"


def test_rates_have_wilson_intervals_over_measured_pairs() -> None:
    outcomes = ["candidate"] * 6 + ["tie"] * 3 + ["baseline"] + ["not_measured"] * 2
    judgements = [PairJudgement(item_id=f"i{n}", trial=0, outcome=o) for n, o in enumerate(outcomes)]  # type: ignore[arg-type]
    result = pairwise_result(SPEC, "v", judgements, inconsistent=2)
    assert result.pairs == 12 and result.measured == 10 and result.inconsistent == 2
    assert (result.wins.count, result.ties.count, result.losses.count) == (6, 3, 1)
    assert result.wins.rate == 0.6
    assert result.wins.ci_low is not None and result.wins.ci_high is not None
    assert 0 <= result.wins.ci_low < 0.6 < result.wins.ci_high <= 1
    assert result.losses.ci_low == pytest.approx(0.0178, abs=1e-3)  # Wilson 1/10
    empty = pairwise_result(SPEC, "v", [], inconsistent=0)
    assert empty.wins.rate is None
