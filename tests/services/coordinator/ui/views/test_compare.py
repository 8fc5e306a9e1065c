from __future__ import annotations

import pytest

from services.coordinator.ui.views.compare import compare_page, diff_metrics, lower_is_better
from shared.analysis.comparison import compare_runs
from tests.shared.analysis.test_comparison import make_run

pytestmark = pytest.mark.unit


def test_a_regression_reads_as_one_banner_with_every_metric_coloured_and_explained() -> None:
    report = compare_runs(make_run("base"), make_run("cand", zero_items=15))
    page = compare_page(report)
    assert page.banner.tone == "bad" and page.banner.title == "Regression"
    assert page.banner.detail == report.verdict
    lines = {line.metric: line for line in page.metrics}
    assert lines["faithfulness"].tone == "bad" and lines["faithfulness"].status == "regression"
    assert lines["latency_ms"].tone == "neutral" and lines["latency_ms"].status == "no significant change"
    assert all(line.reason for line in page.metrics)
    assert lines["order_correctness"].test == "mcnemar exact"
    assert lines["faithfulness"].delta_ci.startswith("[-")
    assert page.breakdowns and all(b.group.startswith("category = ") for b in page.breakdowns)


def test_no_change_is_neutral_and_the_diff_orders_by_item_metrics() -> None:
    report = compare_runs(make_run("base"), make_run("same"))
    page = compare_page(report)
    assert page.banner.tone == "neutral" and page.banner.title == "No regression"
    assert "latency_ms" not in diff_metrics(report)
    assert lower_is_better(report, "latency_ms") and not lower_is_better(report, "faithfulness")
