"""The terminal view of a comparison: the sentence every "not significant" metric shares is printed
once (each metric keeps its own numbers), and the compact view (the demo's) shows per-category rows
only where a category regressed or improved."""

from __future__ import annotations

import pytest
from rich.console import Console

from services.cli.comparison_view import COMPACT_ROWS, MDE_NOTE, STUCK_NOTE, comparison_view, folded_reason
from shared.analysis import ComparisonConfig, compare_runs
from yardstick.api.comparison_report import ComparisonReport
from yardstick.api.run_data import RunData, ScoredItem

pytestmark = pytest.mark.unit

CATEGORIES = ["simple", "modifiers", "combo", "ambiguous", "quantity"]


def _run(name: str, scores: list[dict[str, float]], categories: list[str]) -> RunData:
    items = [
        ScoredItem(
            item_id=str(i), status="ok", scores=s, metadata={"category": categories[i % len(categories)]}
        )
        for i, s in enumerate(scores)
    ]
    return RunData(experiment_id=name, name=name, items=items)


def _report(regressed: bool) -> ComparisonReport:
    """25 items, three metrics that never change (they cannot be significant) and one that drops:
    on two items in five categories of five (too few to test any), or on every item of the larger of
    two categories."""
    categories = ["big", "small"] if regressed else CATEGORIES
    steady = {"protocol": 1.0, "finalize": 1.0, "menu": 1.0}
    base = [{**steady, "order": 1.0} for _ in range(25)]
    cand = [{**steady, "order": 0.0 if (i % 2 == 0 if regressed else i < 2) else 1.0} for i in range(25)]
    config = ComparisonConfig(breakdown_keys=["category"])
    return compare_runs(_run("base", base, categories), _run("cand", cand, categories), config)


def _text(report: ComparisonReport, compact: bool) -> str:
    console = Console(width=120, record=True, color_system=None)
    console.print(comparison_view(report, compact=compact))
    return console.export_text()


def test_the_shared_sentences_are_printed_once_and_each_metric_keeps_its_numbers() -> None:
    report = _report(regressed=False)
    stuck = [r for r in report.metrics if r.in_family is False and r.status == "no_significant_change"]
    assert len(stuck) >= 3  # the steady metrics and the error rate
    text = _text(report, compact=False)
    assert text.count("cannot be significant whatever the signs") == 1
    assert text.count("80% power") == 1
    assert " ".join(STUCK_NOTE.split()) in " ".join(text.split())
    assert " ".join(MDE_NOTE.split()) in " ".join(text.split())
    for r in stuck:
        short, _, is_stuck = folded_reason(r)
        assert is_stuck and short.endswith(" †") and short.startswith("not significant: p(")
        assert r.mde is not None and r.mde.effect is not None
        assert f"could detect ±{r.mde.effect:.3g}" in short
        assert f"{r.metric}: {short}" in text
    # the report itself keeps the full sentence (--format md prints it)
    assert "it cannot be significant whatever the signs" in stuck[0].reason


def test_a_lone_not_significant_metric_keeps_its_whole_sentence() -> None:
    config = ComparisonConfig(breakdown_keys=[], include_error_rate=False)
    base = _run("base", [{"m": 1.0}] * 25, CATEGORIES)
    cand = _run("cand", [{"m": 0.0}] * 2 + [{"m": 1.0}] * 23, CATEGORIES)
    report = compare_runs(base, cand, config)
    (lone,) = report.metrics
    assert lone.status == "no_significant_change" and "could detect a change of" in lone.reason
    text = " ".join(_text(report, compact=False).split())
    assert f"m: {' '.join(lone.reason.split())}" in text
    assert " ".join(MDE_NOTE.split()) not in text and "†" not in text


def test_the_compact_view_prints_categories_only_where_one_regressed_or_improved() -> None:
    quiet = _report(regressed=False)
    assert {r.status for b in quiet.breakdowns for r in b.metrics} <= {
        "insufficient_data",
        "no_significant_change",
    }
    assert any(r.comparison.delta for b in quiet.breakdowns for r in b.metrics)
    full, compact = _text(quiet, compact=False), _text(quiet, compact=True)
    assert "per category" in full and "insufficient_data" in full.split("per category")[1]
    assert "per category" not in compact  # nothing moved: the metrics caption names where the rows are
    assert "the per-category rows: `yardstick compare base cand --format md`" in " ".join(compact.split())
    assert "│ simple" not in compact and "│ simple" in full

    loud = _report(regressed=True)
    moved = {(b.value, r.metric) for b in loud.breakdowns for r in b.metrics if r.status == "regression"}
    assert moved, "some category regressed"
    text = _text(loud, compact=True)
    table = text.split("per category")[1]
    rows = [line for line in table.splitlines() if line.startswith("│ ") and "regression" in line]
    assert {(row.split("│")[1].strip(), row.split("│")[3].strip()) for row in rows} == moved
    assert "the other rows: `yardstick compare base cand --format md`" in text
    # the verdict once, its headline: the per-metric part of the verdict line is the table's
    assert (
        loud.headline
        and text.count("Verdict: ") == 1
        and f"Verdict: {loud.headline}" in " ".join(text.split())
    )
    assert "not significant at n = 25 (detectable" not in text
    assert _text(loud, compact=False).count("Verdict: ") == 2


def test_the_compact_view_lists_a_few_rows_and_names_the_command_for_the_rest() -> None:
    """The demo's view: at most COMPACT_ROWS broken items and metrics (the ones that moved first), no
    per-metric reasons, and the command that shows everything."""
    metrics = [f"m{i}" for i in range(8)]
    base = _run("base", [dict.fromkeys(metrics, 1.0)] * 30, CATEGORIES)
    cand = _run("cand", [dict.fromkeys(metrics, 0.0)] * 10 + [dict.fromkeys(metrics, 1.0)] * 20, CATEGORIES)
    report = compare_runs(base, cand, ComparisonConfig(breakdown_keys=[], include_error_rate=False))
    assert report.broken_total == 80 and len(report.metrics) == 8
    compact = " ".join(_text(report, compact=True).split())
    full = " ".join(_text(report, compact=False).split())
    assert f"{80 - COMPACT_ROWS} more: `yardstick compare base cand --format md`" in compact
    assert f"{8 - COMPACT_ROWS} more metric(s), each one's reason and the per-category rows" in compact
    assert "Why:" not in compact and "Why:" in full
    assert sum(f"│ m{i} " in _text(report, compact=True) for i in range(8)) == COMPACT_ROWS
