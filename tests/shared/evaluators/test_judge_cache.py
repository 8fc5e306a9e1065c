"""The judge cache around a judge, against the bad-day provider counting requests: a hit asks
nothing and spends nothing; other arguments, content or model miss; "not measured" is never kept."""

from __future__ import annotations

from typing import Any

import pytest

from shared.evaluators.judge_cache import HIT, judge_cache_in_use
from tests.evaluator_registry import run_item_evaluators
from tests.llm_provider import BadDayProvider, Reply
from yardstick.api.evaluation import Evaluation, EvaluatorSpec

pytestmark = pytest.mark.integration


class MemoryVerdicts:
    def __init__(self) -> None:
        self.rows: dict[str, Evaluation] = {}

    async def get(self, key: str) -> Evaluation | None:
        return self.rows.get(key)

    async def put(self, key: str, judge: str, verdict: Evaluation) -> None:
        self.rows.setdefault(key, verdict)


def rubric(criteria: str = "Polite.", **args: Any) -> EvaluatorSpec:
    return EvaluatorSpec(name="llm_rubric", args={"criteria": criteria, **args})


async def score(store: MemoryVerdicts, spec: EvaluatorSpec, output: Any = "Sure.") -> Evaluation:
    with judge_cache_in_use(store):
        [ev] = await run_item_evaluators(
            [spec], input={"q": "hi"}, output=output, expected_output=None, metadata={}
        )
    assert ev.error is None, ev
    return ev


async def test_a_second_identical_judgement_makes_no_request(provider: BadDayProvider) -> None:
    provider.fallback = Reply.json({"reason": "fine", "score": 4}, usage=(100, 20))
    store = MemoryVerdicts()
    first = await score(store, rubric())
    assert len(provider.seen) == 1 and first.value == 0.75 and "judge_cache" not in first.metadata
    again = await score(store, rubric())
    assert len(provider.seen) == 1, "a cached verdict asked the model again"
    assert again.value == first.value and again.comment == first.comment
    assert again.metadata["judge_cache"] == HIT
    assert again.metadata["usage"] == {"input_tokens": 0, "output_tokens": 0}
    assert again.metadata["llm_requests"] == 0
    assert again.metadata["cached_usage"] == {"input_tokens": 100, "output_tokens": 20}


async def test_other_arguments_content_or_model_miss(
    provider: BadDayProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    provider.fallback = Reply.json({"reason": "fine", "score": 4})
    store = MemoryVerdicts()
    await score(store, rubric())
    await score(store, rubric("Concise."))
    await score(store, rubric(), output="Sure!")
    await score(store, rubric(scale=[0, 10]))
    await score(store, rubric(judge_model="another-model"))
    assert len(provider.seen) == 5 and len(store.rows) == 5
    await score(store, rubric(judge_model="another-model"))
    assert len(provider.seen) == 5


async def test_not_measured_is_never_cached(provider: BadDayProvider) -> None:
    provider.then(Reply.json({"reason": "great", "score": 10}))  # outside the 1-5 scale
    provider.fallback = Reply.json({"reason": "fine", "score": 2})
    store = MemoryVerdicts()
    first = await score(store, rubric())
    assert first.value is None and (first.comment or "").startswith("not measured")
    assert store.rows == {}
    second = await score(store, rubric())
    assert second.value == 0.25 and "judge_cache" not in second.metadata
    assert len(provider.seen) == 2 and len(store.rows) == 1


async def test_a_failing_store_is_a_miss_not_an_error(provider: BadDayProvider) -> None:
    class Broken(MemoryVerdicts):
        async def get(self, key: str) -> Evaluation | None:
            raise ConnectionError("database down")

        async def put(self, key: str, judge: str, verdict: Evaluation) -> None:
            raise ConnectionError("database down")

    provider.fallback = Reply.json({"reason": "fine", "score": 5})
    assert (await score(Broken(), rubric())).value == 1.0
    assert len(provider.seen) == 1
