from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from shared.analysis.comparison import ComparisonConfig, compare_runs
from shared.analysis.metric_specs import MetricSpecs
from shared.analysis.reports import (
    comparison_junit,
    comparison_markdown,
    experiment_json,
    experiment_junit,
    experiment_markdown,
)
from tests.shared.analysis.in_memory import compute_aggregates
from yardstick.api.comparison_report import ComparisonReport
from yardstick.api.evaluation import Evaluation
from yardstick.api.metric_spec import MetricSpec
from yardstick.api.run_data import RunData, ScoredItem

pytestmark = pytest.mark.unit

SEED_HEADER = "| Metric | Baseline | Candidate | Delta [95% CI] | Delta % | p-value | Effect Size | Status |"


def make_run(name: str, zero_items: int = 0, n: int = 30) -> RunData:
    rng = np.random.default_rng(0)
    quality = np.clip(rng.normal(0.9, 0.04, n), 0, 1)
    return RunData(
        experiment_id=f"exp-{name}",
        name=name,
        items=[
            ScoredItem(
                item_id=f"q{i}",
                status="ok",
                metadata={"category": "a|b" if i % 2 else "plain"},
                scores={"faith|fulness": 0.0 if i < zero_items else float(quality[i]), "exact": 1.0},
                latency_ms=100.0 + i,
            )
            for i in range(n)
        ],
    )


@pytest.fixture(scope="module")
def regressed() -> ComparisonReport:
    return compare_runs(make_run("base"), make_run("cand", zero_items=10))


def test_comparison_markdown_has_seed_table_summary_and_breakdowns(regressed: ComparisonReport) -> None:
    md = comparison_markdown(regressed)
    lines = md.splitlines()
    assert SEED_HEADER in lines
    row = next(line for line in lines if line.startswith("| faith\\|fulness"))  # pipe escaped
    assert "🔴 regression" in row and "(Monte Carlo sign-flip)" in row
    assert "## Summary" in md and "- **Regressions**: 1" in md
    assert "### ⚠️ Regressions Detected" in md
    assert "## Per-category deltas" in md
    assert "| category=a\\|b |" in md
    # every table row has the same number of unescaped cell separators as its header
    for header in (SEED_HEADER, "| Item | Metric | Must-pass | Baseline → candidate | Change | Why |"):
        start = lines.index(header)
        end = lines.index("", start)
        table = [line for line in lines[start:end] if "faith" in line]
        assert table and all(r.replace("\\|", "").count("|") == header.count("|") for r in table)


def test_a_a_markdown_reports_no_regression() -> None:
    run = make_run("base")
    md = comparison_markdown(compare_runs(run, run))
    assert "🔴" not in md and "Regressions Detected" not in md
    assert "PASS: no primary metric regressed" in md
    assert "None: no item that passed in the baseline fails in the candidate." in md


def test_comparison_json_round_trips(regressed: ComparisonReport) -> None:
    data = json.loads(regressed.model_dump_json())
    assert ComparisonReport.model_validate(data) == regressed
    assert data["regression"] is True
    assert data["schema_version"] == 1


def test_comparison_junit_fails_only_regressed_metrics(regressed: ComparisonReport) -> None:
    root = ET.fromstring(comparison_junit(regressed))
    overall = root.find("testsuite")
    assert overall is not None
    cases = overall.findall("testcase")
    assert [c.get("name") for c in cases] == [r.metric for r in regressed.metrics]
    failed = [c.get("name") for c in cases if c.find("failure") is not None]
    assert failed == ["faith|fulness"]
    assert overall.get("failures") == "1" and overall.get("tests") == str(len(cases))
    breakdown = root.findall("testsuite")[1]
    assert breakdown.get("name") == "breakdowns" and breakdown.get("failures") == "0"


def test_comparison_junit_breakdown_failures_when_asked() -> None:
    config = ComparisonConfig(fail_on_breakdown=True)
    report = compare_runs(make_run("base"), make_run("cand", zero_items=20), config)
    root = ET.fromstring(comparison_junit(report))
    breakdown = root.findall("testsuite")[1]
    assert int(breakdown.get("failures", "0")) == len(report.breakdown_regressions) > 0
    assert root.get("failures") == str(1 + len(report.breakdown_regressions))


def detailed_run() -> RunData:
    return RunData(
        experiment_id="exp-x",
        name="drive <thru> & co",
        items=[
            ScoredItem(
                item_id="greet",
                status="ok",
                metadata={"category": "basic", "description": "says hello"},
                scores={"order_correctness": 1.0, "tool_call_accuracy": 0.9},
                latency_ms=420.0,
                evaluations=[
                    Evaluation(
                        name="order_correctness", value=True, comment="all lines match", metadata={"f1": 1}
                    )
                ],
                output={"reply": "Hi!"},
            ),
            ScoredItem(
                item_id="upsell",
                status="ok",
                metadata={"category": "upsell"},
                scores={"order_correctness": 0.0, "tool_call_accuracy": None},
                latency_ms=1000.0,
            ),
            ScoredItem(
                item_id="boom",
                status="error",
                metadata={},
                error="TargetTimeout: <no reply> & \x07bell",
            ),
        ],
        run_scores=[Evaluation(name="avg_order_correctness", value=0.5, comment="mean")],
    )


def test_experiment_json_has_the_trajectory_report_shape() -> None:
    run = detailed_run()
    doc = json.loads(experiment_json(run, compute_aggregates(run)).model_dump_json())
    assert doc["schema_version"] == 1
    assert doc["run"]["experiment_id"] == run.experiment_id
    assert doc["summary"] == {
        "total_tests": 3,
        "passed_tests": 1,
        "failed_tests": 2,
        "pass_rate": pytest.approx(1 / 3),
        "avg_execution_time": pytest.approx(0.71),
    }
    assert doc["category_breakdown"]["basic"] == {"count": 1, "passed": 1, "pass_rate": 1.0}
    assert doc["category_breakdown"]["uncategorized"]["count"] == 1
    greet = doc["test_results"][0]
    assert set(greet) >= {
        "name",
        "category",
        "description",
        "success",
        "execution_time",
        "evaluations",
        "agent_response",
    }
    assert (greet["name"], greet["description"], greet["success"]) == ("greet", "says hello", True)
    assert greet["execution_time"] == pytest.approx(0.42)
    assert greet["evaluations"][0] == {
        "key": "order_correctness",
        "score": 1.0,
        "comment": "all lines match",
        "details": {"f1": 1},
    }
    assert greet["evaluations"][1]["key"] == "tool_call_accuracy"
    assert json.loads(greet["agent_response"]) == {"reply": "Hi!"}
    assert doc["test_results"][2]["success"] is False
    assert doc["aggregates"]["error_count"] == 1


def test_experiment_junit_is_valid_escaped_xml() -> None:
    run = detailed_run()
    xml = experiment_junit(run, compute_aggregates(run))
    root = ET.fromstring(xml)  # raises on invalid XML (e.g. a raw \x07)
    suite = root.find("testsuite")
    assert suite is not None
    assert suite.get("name") == "drive <thru> & co"
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("3", "1", "1")
    cases = {c.get("name"): c for c in suite.findall("testcase")}
    assert cases["upsell#0"].find("failure") is not None
    error = cases["boom#0"].find("error")
    assert error is not None and error.text is not None and "<no reply> &" in error.text
    assert cases["greet#0"].get("time") == "0.420"


def test_experiment_markdown_lists_metrics_breakdowns_and_failures() -> None:
    run = detailed_run()
    md = experiment_markdown(run, compute_aggregates(run))
    assert "| Metric | Mean | 95% CI | Median | p95 | n | None |" in md
    assert "## By category" in md
    assert "## Items that did not pass (2)" in md
    assert "`boom`#0 (error): TargetTimeout" in md
    assert "`upsell`#0 (failed): order_correctness=0 (needs >= 0.5)" in md
    assert "avg_order_correctness" in md
    # one of three items errored, none allowed: said up front
    assert "## Warnings\n\n- ⚠ 1 of 3 items errored (33.3%, allowed 0.0%)" in md


def test_a_lower_is_better_metric_that_rises_fails_junit_and_points_down_in_markdown() -> None:
    """A declared lower-is-better metric (issue 22): rising is a JUnit failure and reads ↓ in markdown;
    the same rise of an undeclared metric is an improvement."""
    rises = (
        RunData(experiment_id="b", name="b", items=[_scored(i, 0.0) for i in range(40)]),
        RunData(experiment_id="c", name="c", items=[_scored(i, 0.8) for i in range(40)]),
    )
    specs = MetricSpecs(declared={"toxicity_probe": MetricSpec.lower(0.5)})
    report = compare_runs(*rises, specs=specs, baseline_specs=specs)
    overall = ET.fromstring(comparison_junit(report)).find("testsuite")
    assert overall is not None
    failed = [c.get("name") for c in overall.findall("testcase") if c.find("failure") is not None]
    assert failed == ["toxicity_probe"]
    assert "| toxicity_probe ↓ |" in comparison_markdown(report)
    assert compare_runs(*rises).improvements == ["toxicity_probe"]


def _scored(i: int, toxicity: float) -> ScoredItem:
    return ScoredItem(item_id=f"q{i}", status="ok", scores={"toxicity_probe": toxicity})
