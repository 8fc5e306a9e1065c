from __future__ import annotations

import pytest

from services.coordinator.ui.views.experiments import Pager, headline_metrics, target_label
from yardstick.api.eval_messages import AgentTarget, HttpTarget, PythonTarget, SearchTarget
from yardstick.api.pass_criteria import PassCriterion
from yardstick.api.run_aggregates import ExperimentAggregates

pytestmark = pytest.mark.unit


def test_target_labels_name_what_was_run() -> None:
    assert target_label(AgentTarget()) == "agent · offline"
    assert target_label(AgentTarget(prompt="drive-thru/orchestrator@staging")) == (
        "agent · offline · drive-thru/orchestrator@staging"
    )
    assert target_label(SearchTarget(degrade=0.3)) == "search · balanced · degrade 0.3"
    assert target_label(HttpTarget(url="http://127.0.0.1:9/answer")) == "http · http://127.0.0.1:9/answer"


def aggregates(metrics: list[str], gating: list[str]) -> ExperimentAggregates:
    metric = {
        "mean": 0.5,
        "median": 0.5,
        "p95": 0.6,
        "sd": 0.1,
        "ci_low": 0.4,
        "ci_high": 0.6,
        "count": 10,
        "none_count": 0,
    }
    return ExperimentAggregates.model_validate(
        {
            "experiment_id": "e",
            "name": "n",
            "item_count": 10,
            "ok_count": 10,
            "error_count": 0,
            "error_rate": 0.0,
            "pass_threshold": 0.5,
            "pass_criteria": {m: PassCriterion.model_validate(">=0.5") for m in gating},
            "passed": 5,
            "pass_rate": 0.5,
            "metrics": {m: metric for m in metrics},
            "latency": {"count": 0},
            "tokens": None,
            "run_scores": [],
            "breakdowns": {},
        }
    )


def test_headlines_put_the_gating_metrics_first() -> None:
    headlines = headline_metrics(aggregates(["map", "mrr", "precision@10", "recall@10"], ["recall@10"]))
    assert [h.name for h in headlines] == ["recall@10", "map", "mrr"]
    assert headline_metrics(None) == []


def test_pager_positions() -> None:
    pager = Pager(page=2, per_page=25, total=60)
    assert (pager.pages, pager.offset, pager.first, pager.last) == (3, 25, 26, 50)
    assert pager.has_previous and pager.has_next
    last = Pager(page=3, per_page=25, total=60)
    assert (last.first, last.last, last.has_next) == (51, 60, False)
    empty = Pager(page=1, per_page=25, total=0)
    assert (empty.pages, empty.first, empty.last, empty.has_next) == (1, 0, 0, False)


def test_a_python_target_is_named_by_its_task() -> None:
    assert target_label(PythonTarget(name="my-app")) == "python · my-app"
