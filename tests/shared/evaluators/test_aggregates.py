"""Run-level evaluators: avg_order_correctness, avg_score and score_breakdown."""

from __future__ import annotations

import pytest
from langfuse.experiment import Evaluation as LangfuseEvaluation
from langfuse.experiment import ExperimentItemResult

from shared.evaluators.aggregates import avg_order_correctness, avg_score, score_breakdown
from shared.evaluators.item_results import ItemResult
from tests.evaluator_registry import run_run_evaluators
from yardstick.api.evaluation import Evaluation, EvaluatorSpec

pytestmark = pytest.mark.unit


def item(category: str, difficulty: str | None, order: float | None, tool: float = 1.0) -> ItemResult:
    metadata = {"category": category} | ({"difficulty": difficulty} if difficulty else {})
    return ItemResult(
        item_id=f"{category}-{order}",
        metadata=metadata,
        evaluations=[
            Evaluation(name="order_correctness", value=order),
            Evaluation(name="tool_call_accuracy", value=tool),
        ],
    )


def test_avg_order_correctness_rounds_and_counts() -> None:
    results = [
        item("a", "easy", 1.0),
        item("a", "easy", 0.5),
        item("b", "hard", 0.6),
        item("b", "hard", None),
    ]
    ev = avg_order_correctness(item_results=results)
    assert ev.value == 0.7
    assert ev.metadata == {"count": 3}
    assert ev.comment == "Average order correctness: 70.0% across 3 items"


def test_avg_order_correctness_with_thirds_rounds_to_three_places() -> None:
    ev = avg_order_correctness(
        item_results=[item("a", None, 1.0), item("a", None, 0.0), item("a", None, 0.0)]
    )
    assert ev.value == 0.333


def test_avg_order_correctness_without_scores_is_none() -> None:
    ev = avg_order_correctness(item_results=[])
    assert ev.value is None and ev.comment == "no order_correctness scores"


def test_avg_order_correctness_on_langfuse_results() -> None:
    results = [
        ExperimentItemResult(
            item={"input": {}},
            output={},
            evaluations=[LangfuseEvaluation(name="order_correctness", value=v)],
            trace_id=None,
        )
        for v in (1.0, 0.4)
    ]
    assert avg_order_correctness(item_results=results).value == 0.7


def test_avg_score_any_metric() -> None:
    results = [ItemResult(evaluations=[Evaluation(name="mrr", value=v)]) for v in (1.0, 0.5, 0.0)]
    ev = avg_score(item_results=results, score="mrr")
    assert (ev.name, ev.value) == ("avg_mrr", 0.5)


def test_score_breakdown_per_category_and_difficulty() -> None:
    results = [
        item("quantity", "easy", 1.0),
        item("quantity", "hard", 0.5, tool=0.5),
        item("greeting", None, 0.0),
    ]
    by_name = {e.name: e for e in score_breakdown(item_results=results)}
    assert by_name["order_correctness[category=quantity]"].value == 0.75
    assert by_name["order_correctness[category=quantity]"].metadata["count"] == 2
    assert by_name["order_correctness[category=greeting]"].value == 0.0
    assert by_name["tool_call_accuracy[category=quantity]"].value == 0.75
    assert by_name["order_correctness[difficulty=easy]"].value == 1.0
    assert by_name["order_correctness[difficulty=unspecified]"].metadata["count"] == 1
    assert len(by_name) == 2 * (2 + 3)


def test_score_breakdown_keys_and_score_filter() -> None:
    results = [item("quantity", "easy", 1.0), item("greeting", "easy", 0.0)]
    evs = score_breakdown(item_results=results, keys=["difficulty"], scores=["order_correctness"])
    assert [(e.name, e.value) for e in evs] == [("order_correctness[difficulty=easy]", 0.5)]


def test_score_breakdown_leaves_out_default_keys_no_item_has() -> None:
    results = [ItemResult(metadata={"category": "temporal"}, evaluations=[Evaluation(name="mrr", value=0.5)])]
    assert [e.name for e in score_breakdown(item_results=results)] == ["mrr[category=temporal]"]
    explicit = score_breakdown(item_results=results, keys=["query_type"])
    assert [e.name for e in explicit] == ["mrr[query_type=unspecified]"]


def test_score_breakdown_with_nothing_to_aggregate() -> None:
    [ev] = score_breakdown(item_results=[])
    assert ev.value is None


async def test_run_level_registry_passes_args() -> None:
    results = [item("quantity", "easy", 1.0)]
    evs = await run_run_evaluators(
        [
            EvaluatorSpec(name="avg_order_correctness"),
            EvaluatorSpec(name="score_breakdown", args={"keys": ["category"]}),
        ],
        item_results=results,
    )
    assert [e.name for e in evs] == [
        "avg_order_correctness",
        "order_correctness[category=quantity]",
        "tool_call_accuracy[category=quantity]",
    ]
