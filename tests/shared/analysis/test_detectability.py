"""Power in every verdict: too few items, Tarone's family, the MDE in the report."""

from __future__ import annotations

import pytest

from shared.analysis import compare_runs
from yardstick.api.comparison_config import ComparisonConfig
from yardstick.api.run_data import RunData, ScoredItem

pytestmark = pytest.mark.unit


def _run(name: str, scores: list[dict[str, float]]) -> RunData:
    items = [ScoredItem(item_id=str(i), status="ok", scores=s) for i, s in enumerate(scores)]
    return RunData(experiment_id=name, name=name, items=items)


def test_four_items_cannot_detect_any_change_and_the_report_says_so() -> None:
    # the README's example: exact_match 1 -> 0 on all four items
    report = compare_runs(
        _run("b", [{"exact_match": 1.0}] * 4),
        _run("c", [{"exact_match": 0.0}] * 4),
        ComparisonConfig(breakdown_keys=[]),
    )
    exact = report.metrics[0]
    assert exact.status == "insufficient_data"
    assert "too few items to detect any change" in exact.reason and "0.125" in exact.reason
    assert "at least 6 pairs" in exact.reason
    assert report.underpowered == ["exact_match", "error_rate"]
    assert report.inconclusive and not report.regression
    assert report.verdict.startswith("INCONCLUSIVE: too few items")
    assert exact.mde is not None and exact.mde.effect is None and exact.mde.pairs_needed == 6


def test_no_significant_change_carries_its_mde_and_sparse_changes_leave_the_family() -> None:
    # the demo's order_correctness: 1.000 -> 0.891, five of 25 items dropped, the rest unchanged
    base = [{"order_correctness": 1.0, "tool_call_accuracy": 1.0}] * 25
    cand = [{"order_correctness": 1.0, "tool_call_accuracy": 1.0}] * 20 + [
        {"order_correctness": x, "tool_call_accuracy": 1.0} for x in (0.4, 0.5, 0.45, 0.6, 0.33)
    ]
    report = compare_runs(
        _run("b", base), _run("c", cand), ComparisonConfig(breakdown_keys=[], multiplicity="holm")
    )
    order, tool, _errors = report.metrics
    assert order.status == "no_significant_change"
    assert order.mde is not None and order.mde.basis == "paired_differences"
    assert order.mde.effect == pytest.approx(0.133, abs=0.005) and order.mde.alpha == 0.05
    assert "could detect a change of ±0.133" in order.reason
    assert order.in_family is False and "left out of the Holm family" in order.reason
    assert tool.mde is not None and tool.mde.basis == "discordance" and tool.in_family is False
    assert "past the threshold but not significant: order_correctness -0.109 (MDE ±0.133)" in report.verdict
    assert not report.inconclusive


def test_the_mde_uses_the_level_of_a_lone_change_in_its_family() -> None:
    # three metrics that each could be significant: the MDE is at alpha / 3
    base = [{f"m{j}": 1.0 if (i + j) % 3 else 0.0 for j in range(3)} for i in range(60)]
    cand = [{f"m{j}": 1.0 if (i + j) % 4 else 0.0 for j in range(3)} for i in range(60)]
    report = compare_runs(
        _run("b", base), _run("c", cand), ComparisonConfig(breakdown_keys=[], include_error_rate=False)
    )
    for r in report.metrics:
        assert r.family_size == 3 and r.in_family
        assert r.mde is not None and r.mde.alpha == pytest.approx(0.05 / 3)
