from __future__ import annotations

import pytest

from services.coordinator.ui.views.compare import compare_page, diff_metrics, lower_is_better
from shared.analysis.comparison import compare_runs
from shared.analysis.metric_specs import MetricSpecs
from tests.shared.analysis.test_comparison import make_run
from yardstick.api.metric_spec import MetricSpec
from yardstick.api.run_data import RunData, ScoredItem

pytestmark = pytest.mark.unit


def test_a_regression_reads_as_one_banner_with_every_metric_coloured_and_explained() -> None:
    report = compare_runs(make_run("base"), make_run("cand", zero_items=15))
    page = compare_page(report)
    assert page.banner.tone == "bad" and page.banner.title.startswith("FAIL: 2 primary metrics regressed")
    assert f"{page.banner.title} {page.banner.detail}" == report.verdict
    lines = {line.metric: line for line in page.metrics}
    assert lines["faithfulness"].tone == "bad" and lines["faithfulness"].status == "regression"
    assert lines["latency_ms"].tone == "neutral" and lines["latency_ms"].status == "informational"
    assert lines["latency_ms"].secondary and not lines["faithfulness"].secondary
    assert all(line.reason for line in page.metrics)
    assert lines["order_correctness"].test == "mcnemar exact"
    assert lines["faithfulness"].delta_ci.startswith("[-")
    assert page.breakdowns and all(b.group.startswith("category = ") for b in page.breakdowns)


def test_no_change_is_neutral_and_the_diff_orders_by_item_metrics() -> None:
    report = compare_runs(make_run("base"), make_run("same"))
    page = compare_page(report)
    assert page.banner.tone == "neutral" and page.banner.title.startswith("PASS: no primary metric regressed")
    assert "latency_ms" not in diff_metrics(report)
    assert lower_is_better(report, "latency_ms") and not lower_is_better(report, "faithfulness")


def test_a_lower_is_better_metric_that_rises_is_red_with_a_down_arrow() -> None:
    """The metric's spec, not its name, decides the arrow and the colour (issue 22)."""
    specs = MetricSpecs(declared={"toxicity_probe": MetricSpec.lower(0.5)})
    base = RunData(experiment_id="b", name="b", items=[_toxic(i, 0.0) for i in range(40)])
    cand = RunData(experiment_id="c", name="c", items=[_toxic(i, 0.8) for i in range(40)])
    report = compare_runs(base, cand, specs=specs, baseline_specs=specs)
    line = {m.metric: m for m in compare_page(report).metrics}["toxicity_probe"]
    assert (line.arrow, line.tone, line.status) == ("↓", "bad", "regression")
    assert lower_is_better(report, "toxicity_probe")


def _toxic(i: int, value: float) -> ScoredItem:
    return ScoredItem(item_id=f"q{i}", status="ok", scores={"toxicity_probe": value})


def test_the_item_diff_opens_on_a_metric_that_broke_items() -> None:
    """A secondary metric that did not move is not where the item diff starts: a regressed primary
    metric, else the first broken item's, else a primary one."""
    from services.coordinator.ui.views.compare import default_diff_metric

    base, worse = make_run("base"), make_run("cand", zero_items=15)
    regressed = compare_runs(base, worse)
    assert default_diff_metric(regressed, diff_metrics(regressed)) == regressed.regressions[0]
    same = compare_runs(base, make_run("same"))
    assert default_diff_metric(same, diff_metrics(same)) in {
        m.metric for m in same.metrics if m.role == "primary"
    }
    assert default_diff_metric(same, []) is None
