"""Tier-1 retrieval metrics: trec_eval definitions, null queries, and agreement with ranx."""

from __future__ import annotations

import math
import os
import random
from typing import Any

import pytest

from shared.evaluators.retrieval import map_, mrr, null_query_correct, retrieval
from shared.evaluators.retrieval_metrics import Judgements, ndcg_at
from tests.evaluator_registry import get, run_item_evaluators
from yardstick.api.evaluation import Evaluation, EvaluatorSpec

pytestmark = pytest.mark.unit


def hits(*ids: str) -> dict[str, Any]:
    return {
        "results": [{"id": d, "score": 1.0 - i / 100, "rank": i + 1} for i, d in enumerate(ids)],
        "latency_ms": 3.0,
    }


def scores(output: dict[str, Any], expected: dict[str, Any], **args: Any) -> dict[str, float | bool | None]:
    return {e.name: e.value for e in retrieval(output=output, expected_output=expected, **args)}


def test_binary_relevance_example() -> None:
    s = scores(hits("d3", "d1", "d2"), {"relevant_ids": ["d1", "d2"]})
    assert s["mrr"] == 0.5
    assert s["recall@3"] == 1.0
    assert s["precision@3"] == pytest.approx(2 / 3, abs=1e-6)
    assert s["precision@5"] == pytest.approx(2 / 5)  # divides by k, not by the number retrieved
    assert s["hit@3"] == 1.0
    assert s["map"] == pytest.approx((1 / 2 + 2 / 3) / 2, abs=1e-6)
    ideal = 1 + 1 / math.log2(3)
    assert s["ndcg@3"] == pytest.approx((1 / math.log2(3) + 1 / math.log2(4)) / ideal, abs=1e-6)
    assert list(s) == [
        "mrr",
        *(f"{m}@{k}" for k in (3, 5, 10) for m in ("recall", "precision", "ndcg", "hit")),
        "map",
    ]


def test_cutoffs_and_misses() -> None:
    s = scores(hits("x", "y", "d1"), {"relevant_ids": ["d1", "d9"]}, ks=[1, 2])
    assert s == {
        "mrr": pytest.approx(1 / 3),
        "recall@1": 0.0,
        "precision@1": 0.0,
        "ndcg@1": 0.0,
        "hit@1": 0.0,
        "recall@2": 0.0,
        "precision@2": 0.0,
        "ndcg@2": 0.0,
        "hit@2": 0.0,
        "map": pytest.approx((1 / 3) / 2),
    }


def test_graded_ndcg_uses_linear_gains_and_ungraded_relevant_counts_one() -> None:
    expected = {"relevant_ids": ["d1", "d2", "d3"], "graded_relevance": {"d1": 3, "d2": 2}}
    s = scores(hits("d3", "d1"), expected, ks=[2])
    dcg = 1 / math.log2(2) + 3 / math.log2(3)
    idcg = 3 / math.log2(2) + 2 / math.log2(3)
    assert s["ndcg@2"] == pytest.approx(dcg / idcg, abs=1e-6)


def test_ideal_ranking_is_cut_at_k_from_all_judged_relevant() -> None:
    s = scores(hits("a"), {"relevant_ids": ["a", "b", "c", "d", "e"]}, ks=[3])
    assert s["ndcg@3"] == pytest.approx(1 / (1 + 1 / math.log2(3) + 1 / math.log2(4)), abs=1e-6)
    assert s["recall@3"] == pytest.approx(0.2)


def test_grade_zero_is_not_relevant_and_graded_only_ids_are() -> None:
    s = scores(hits("a", "b"), {"relevant_ids": ["a"], "graded_relevance": {"a": 0, "b": 2}}, ks=[1])
    assert s["mrr"] == 0.5 and s["recall@1"] == 0.0


def test_results_are_ordered_by_rank_and_duplicates_dropped() -> None:
    output = {
        "results": [
            {"id": "d1", "score": 0.2, "rank": 2},
            {"id": "x", "score": 0.9, "rank": 1},
            {"id": "x", "score": 0.1, "rank": 3},
        ]
    }
    s = scores(output, {"relevant_ids": ["d1"]}, ks=[2])
    assert s["mrr"] == 0.5 and s["precision@2"] == 0.5


def test_null_query_metrics_are_none_and_null_query_correct_is_scored() -> None:
    evs = retrieval(output={"results": []}, expected_output={"relevant_ids": []})
    by_name = {e.name: e for e in evs}
    assert by_name["mrr"].value is None and by_name["mrr"].comment == "no relevant ids"
    assert all(e.value is None for n, e in by_name.items() if n != "null_query_correct")
    assert by_name["null_query_correct"].value == 1.0
    returned = {e.name: e.value for e in retrieval(output=hits("a"), expected_output={"relevant_ids": []})}
    assert returned["null_query_correct"] == 0.0


def test_null_query_score_threshold() -> None:
    output = {"results": [{"id": "a", "score": 0.1, "rank": 1}]}
    assert (
        null_query_correct(output=output, expected_output={"relevant_ids": []}, score_threshold=0.2).value
        == 1.0
    )
    assert (
        null_query_correct(output=output, expected_output={"relevant_ids": []}, score_threshold=0.05).value
        == 0.0
    )


def test_null_query_correct_is_none_for_queries_with_relevant_ids() -> None:
    assert null_query_correct(output=hits(), expected_output={"relevant_ids": ["a"]}).value is None
    names = [e.name for e in retrieval(output=hits("a"), expected_output={"relevant_ids": ["a"]})]
    assert "null_query_correct" not in names


def test_single_metric_registrations() -> None:
    expected = {"relevant_ids": ["d1"]}
    assert mrr(output=hits("x", "d1"), expected_output=expected).value == 0.5
    assert map_(output=hits("x", "d1"), expected_output=expected).value == 0.5
    recall = get("recall_at_k").fn(output=hits("x", "d1"), expected_output=expected, k=1)
    assert isinstance(recall, Evaluation) and (recall.name, recall.value) == ("recall@1", 0.0)
    ndcg = get("ndcg_at_k").fn(output=hits("d1"), expected_output=expected)
    assert (ndcg.name, ndcg.value) == ("ndcg@5", 1.0)


async def test_bad_arguments_are_recorded_failures() -> None:
    [missing] = await run_item_evaluators(
        [EvaluatorSpec(name="retrieval")],
        input={},
        output=hits("a"),
        expected_output={"expected_items": []},
        metadata={},
    )
    assert missing.error is not None and "relevant_ids" in missing.error
    [bad_k] = await run_item_evaluators(
        [EvaluatorSpec(name="retrieval", args={"ks": [0]})],
        input={},
        output=hits("a"),
        expected_output={"relevant_ids": ["a"]},
        metadata={},
    )
    assert bad_k.error is not None and "ks.0: Input should be greater than or equal to 1" in bad_k.error


# --- agreement with an independent implementation (ranx) ------------------------------------

RANX_METRICS = {
    "mrr": "mrr",
    "map": "map",
    **{
        f"{m}@{k}": f"{r}@{k}"
        for k in (3, 5, 10)
        for m, r in (("recall", "recall"), ("precision", "precision"), ("ndcg", "ndcg"), ("hit", "hit_rate"))
    },
}


@pytest.fixture(scope="module")
def ranx_evaluate() -> Any:
    """ranx with numba's JIT off: its metrics run as plain Python, which takes well under a second
    for these queries, where compiling them took from 15 s to over 2 minutes on a fresh 2-core
    machine (numba's cache is empty in a fresh clone). The definitions checked are the same."""
    os.environ["NUMBA_DISABLE_JIT"] = "1"  # read when numba is imported, which ranx does
    from numba.core import config

    config.reload_config()
    from ranx import Qrels, Run, evaluate

    return Qrels, Run, evaluate


def random_queries(seed: int, count: int) -> list[tuple[dict[str, int], list[str]]]:
    rnd = random.Random(seed)
    corpus = [f"doc{i}" for i in range(40)]
    queries = []
    for _ in range(count):
        judged = rnd.sample(corpus, rnd.randint(1, 8))
        graded = rnd.random() < 0.5
        qrels = {d: (rnd.randint(0, 3) if graded else 1) for d in judged}
        if not any(v >= 1 for v in qrels.values()):
            qrels[judged[0]] = 1
        ranking = rnd.sample(corpus, rnd.randint(1, 15))
        queries.append((qrels, ranking))
    return queries


def test_metrics_agree_with_ranx_on_random_rankings(ranx_evaluate: Any) -> None:
    qrels_cls, run_cls, evaluate = ranx_evaluate
    queries = random_queries(seed=20260213, count=300)
    qrels = qrels_cls({f"q{i}": q for i, (q, _) in enumerate(queries)})
    run = run_cls(
        {f"q{i}": {d: float(len(r) - rank) for rank, d in enumerate(r)} for i, (_, r) in enumerate(queries)}
    )
    evaluate(qrels, run, list(RANX_METRICS.values()))
    for i, (judgements, ranking) in enumerate(queries):
        expected = {
            "relevant_ids": [d for d, g in judgements.items() if g >= 1],
            "graded_relevance": judgements,
        }
        ours = scores(
            {"results": [{"id": d, "score": 0.0, "rank": r + 1} for r, d in enumerate(ranking)]}, expected
        )
        for name, ranx_name in RANX_METRICS.items():
            theirs = run.scores[ranx_name][f"q{i}"]
            assert ours[name] == pytest.approx(theirs, abs=1e-6), (f"q{i}", name, judgements, ranking)


def test_ndcg_with_fractional_grades_stays_at_most_one() -> None:
    """relevant [a, b], b graded 0.5, ranking [b, a]: the ideal ranking counts b's gain too."""
    judgements = Judgements(["a", "b"], {"b": 0.5})
    # DCG = 0.5/log2(2) + 1/log2(3) = 1.131; ideal [a, b] = 1 + 0.5/log2(3) = 1.315
    assert ndcg_at(["b", "a"], judgements, 5) == pytest.approx(0.860, abs=5e-4)
    assert ndcg_at(["a", "b"], judgements, 5) == pytest.approx(1.0)
