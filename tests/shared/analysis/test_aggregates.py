from __future__ import annotations

import pytest

from tests.shared.analysis.in_memory import compute_aggregates
from yardstick.api.agent_messages import TokenUsage
from yardstick.api.evaluation import Evaluation
from yardstick.api.run_aggregates import ExperimentAggregates
from yardstick.api.run_data import RunData, ScoredItem

pytestmark = pytest.mark.unit


def small_run() -> RunData:
    return RunData(
        experiment_id="exp-1",
        name="small",
        items=[
            ScoredItem(
                item_id="a",
                status="ok",
                metadata={"category": "menu", "difficulty": "easy"},
                scores={"order_correctness": 1.0, "faithfulness": 0.8},
                latency_ms=100.0,
                usage=TokenUsage(input_tokens=10, output_tokens=5, total_tokens=15),
            ),
            ScoredItem(
                item_id="b",
                status="ok",
                metadata={"category": "menu", "difficulty": "hard"},
                scores={"order_correctness": 0.0, "faithfulness": None},
                latency_ms=200.0,
            ),
            ScoredItem(
                item_id="c",
                status="ok",
                metadata={"category": "upsell"},
                scores={"order_correctness": True, "faithfulness": 0.6},
                latency_ms=300.0,
                usage=TokenUsage(input_tokens=20, output_tokens=7, total_tokens=27),
            ),
            ScoredItem(
                item_id="d",
                status="error",
                metadata={"category": "upsell"},
                error="TargetTimeout: no reply",
                latency_ms=30000.0,
            ),
        ],
        run_scores=[Evaluation(name="avg_order_correctness", value=2 / 3)],
    )


def test_metric_summaries_ignore_errors_and_count_nones() -> None:
    agg = compute_aggregates(small_run())
    oc = agg.metrics["order_correctness"]
    assert (oc.count, oc.none_count) == (3, 0)
    assert oc.mean == pytest.approx(2 / 3)
    faith = agg.metrics["faithfulness"]
    assert (faith.count, faith.none_count) == (2, 1)
    assert faith.mean == pytest.approx(0.7)
    assert faith.ci_low is not None and faith.ci_low < 0.7 < faith.ci_high  # type: ignore[operator]


def test_counts_pass_rate_latency_tokens() -> None:
    agg = compute_aggregates(small_run())
    assert (agg.item_count, agg.ok_count, agg.error_count) == (4, 3, 1)
    assert agg.error_rate == 0.25
    assert agg.passed == 2  # a and c; b has a 0 score; d errored
    assert agg.pass_rate == 0.5
    assert agg.latency.count == 3  # the error's 30 s timeout is not a latency
    assert agg.latency.p50 == pytest.approx(200.0)
    assert agg.latency.p95 == pytest.approx(290.0)
    assert agg.latency.p99 == pytest.approx(298.0)
    assert agg.tokens is not None
    assert (agg.tokens.items_reporting, agg.tokens.total_tokens, agg.tokens.input_tokens) == (2, 42, 30)
    assert agg.run_scores[0].name == "avg_order_correctness"


def test_breakdowns_per_key_and_value() -> None:
    agg = compute_aggregates(small_run())
    assert set(agg.breakdowns) == {"category", "difficulty"}  # no item has query_type
    menu = agg.breakdowns["category"]["menu"]
    assert (menu.count, menu.passed, menu.error_count) == (2, 1, 0)
    assert menu.metrics["order_correctness"].mean == pytest.approx(0.5)
    assert menu.metrics["faithfulness"].none_count == 1
    upsell = agg.breakdowns["category"]["upsell"]
    assert (upsell.count, upsell.error_count, upsell.pass_rate) == (2, 1, 0.5)
    assert list(agg.breakdowns["difficulty"]) == ["easy", "hard"]


def test_empty_run_and_json_round_trip() -> None:
    empty = compute_aggregates(RunData(experiment_id="e", name="e"))
    assert (empty.item_count, empty.pass_rate, empty.error_rate, empty.tokens) == (0, None, None, None)
    assert empty.metrics == {} and empty.latency.count == 0
    agg = compute_aggregates(small_run(), breakdown_keys=("category",))
    assert set(agg.breakdowns) == {"category"}
    assert ExperimentAggregates.model_validate(agg.model_dump(mode="json")) == agg
