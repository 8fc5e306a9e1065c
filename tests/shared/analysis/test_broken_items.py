"""Broken and fixed items, must-pass items and, with trials, significant item regressions."""

from __future__ import annotations

import pytest
from scipy.stats import fisher_exact

from shared.analysis.comparison import compare_runs
from yardstick.api.comparison_config import ComparisonConfig
from yardstick.api.evaluation import Evaluation
from yardstick.api.run_data import RunData, ScoredItem

pytestmark = pytest.mark.unit

CONFIG = ComparisonConfig(include_latency=False, breakdown_keys=[])


def _run(
    name: str, passed: dict[str, list[bool]], metadata: dict[str, dict[str, object]] | None = None
) -> RunData:
    """One 0/1 metric ``ok``; ``passed[item]`` lists the item's trials."""
    items = [
        ScoredItem(
            item_id=item_id,
            trial=trial,
            status="ok",
            metadata=(metadata or {}).get(item_id, {}),
            scores={"ok": float(p)},
            evaluations=[Evaluation(name="ok", value=float(p), comment=None if p else f"{item_id} wrong")],
        )
        for item_id, trials in passed.items()
        for trial, p in enumerate(trials)
    ]
    return RunData(experiment_id=f"exp-{name}", name=name, items=items)


def test_without_trials_a_flipped_item_is_named_with_its_reason() -> None:
    base = {f"i{k}": [True] for k in range(10)} | {"i10": [False]}
    cand = base | {"i3": [False], "i7": [False], "i10": [True]}
    report = compare_runs(_run("a", base), _run("b", cand), CONFIG)
    assert [(c.item_id, c.change, c.significant) for c in report.broken_items] == [
        ("i3", "broken", True),
        ("i7", "broken", True),
    ]
    assert report.broken_items[0].reason == "i3 wrong"
    assert [c.item_id for c in report.fixed_items] == ["i10"]
    assert report.fixed_items[0].reason == "i10 wrong"  # why the baseline failed it
    assert not report.regression and report.must_pass_broken == []
    assert report.verdict.startswith(
        "PASS: no primary metric regressed on 11 paired items. Look at the 2 items"
    )


def test_a_broken_must_pass_item_fails_the_comparison_without_statistics() -> None:
    base = {f"order-{k:03d}": [True] for k in range(25)}
    cand = base | {"order-007": [False], "order-019": [False]}
    marks: dict[str, dict[str, object]] = {
        "order-007": {"must_pass": True},
        "order-019": {"category": "quantity"},
    }
    runs = _run("a", base, marks), _run("b", cand, marks)
    only_marked = compare_runs(*runs, CONFIG)
    assert only_marked.must_pass_broken == ["order-007"] and only_marked.regression
    assert only_marked.broken_items[0].must_pass and not only_marked.broken_items[1].must_pass
    by_category = ComparisonConfig(
        include_latency=False, breakdown_keys=[], must_pass_categories=["quantity"]
    )
    report = compare_runs(*runs, by_category)
    assert report.must_pass_broken == ["order-007", "order-019"] and report.must_pass_items == 2
    assert report.verdict.startswith("FAIL: 2 must-pass items broke (order-007, -019); fix them")
    assert "ok -0.08, not significant at n = 25" in report.verdict


def test_with_trials_a_significant_fall_is_told_from_a_flaky_item() -> None:
    base = {"steady": [True] * 10, "flaky": [True] * 10, "fine": [True] * 10}
    cand = {"steady": [False] * 10, "flaky": [True] * 9 + [False], "fine": [True] * 10}
    marks: dict[str, dict[str, object]] = {k: {"must_pass": True} for k in base}
    report = compare_runs(_run("a", base, marks), _run("b", cand, marks), CONFIG)
    assert report.trials
    changes = {c.item_id: c for c in report.broken_items}
    assert set(changes) == {"steady", "flaky"}
    steady, flaky = changes["steady"], changes["flaky"]
    assert (steady.baseline_passes, steady.candidate_passes, steady.trials) == (10, 0, 10)
    # one-sided Fisher's exact test, as scipy computes it
    assert steady.p_value == pytest.approx(fisher_exact([[10, 0], [0, 10]], alternative="greater")[1])
    assert flaky.p_value == pytest.approx(fisher_exact([[10, 0], [9, 1]], alternative="greater")[1])
    assert steady.significant and not flaky.significant
    assert report.must_pass_broken == ["steady"] and report.regression
    assert "(1 within chance over the trials: flaky)" in report.verdict


def test_junit_fails_one_case_per_broken_must_pass_item() -> None:
    import xml.etree.ElementTree as ET

    from shared.analysis.reports import comparison_junit

    base = {f"order-{k:03d}": [True] for k in range(25)}
    cand = base | {"order-007": [False], "order-019": [False]}
    marks: dict[str, dict[str, object]] = {"order-007": {"must_pass": True}}
    report = compare_runs(_run("a", base, marks), _run("b", cand, marks), CONFIG)
    root = ET.fromstring(comparison_junit(report))
    suite = next(s for s in root.iter("testsuite") if s.get("name") == "broken items")
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert set(cases) == {"order-007", "order-019"}
    failure = cases["order-007"].find("failure")
    assert failure is not None and "must-pass item order-007 broke" in (failure.get("message") or "")
    assert cases["order-019"].find("failure") is None
    assert root.get("failures") == "1"
