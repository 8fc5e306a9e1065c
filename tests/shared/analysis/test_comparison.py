from __future__ import annotations

import json

import numpy as np
import pytest

from shared.analysis.comparison import (
    ComparisonError,
    compare_runs,
    comparison_spec,
)
from shared.analysis.metric_specs import MetricSpecs
from tests.evaluator_registry import REGISTRY
from yardstick.api.comparison_config import ComparisonConfig
from yardstick.api.comparison_report import MetricResult
from yardstick.api.evaluation import Evaluation, EvaluatorSpec
from yardstick.api.pass_criteria import PassCriterion
from yardstick.api.run_data import ItemKey, RunData, ScoredItem

pytestmark = pytest.mark.unit

CATEGORIES = ("menu", "order", "upsell")


def make_run(
    name: str,
    n: int = 50,
    *,
    seed: int = 0,
    zero_items: int = 0,
    latency_shift: float = 0.0,
    error_items: int = 0,
) -> RunData:
    """A run with a continuous metric (~0.9), a 0/1 metric (90% pass) and latency (~200 ms)."""
    rng = np.random.default_rng(seed)
    quality = np.clip(rng.normal(0.9, 0.04, n), 0, 1)
    correct = (rng.random(n) < 0.9).astype(float)
    latency = rng.normal(200, 15, n)
    items = []
    for i in range(n):
        zeroed = i < zero_items
        errored = zero_items <= i < zero_items + error_items
        items.append(
            ScoredItem(
                item_id=f"q{i:03d}",
                status="error" if errored else "ok",
                metadata={"category": CATEGORIES[i % 3]},
                scores={}
                if errored
                else {
                    "faithfulness": 0.0 if zeroed else float(quality[i]),
                    "order_correctness": 0.0 if zeroed else float(correct[i]),
                },
                latency_ms=None if errored else float(latency[i] + latency_shift),
                error="TargetTimeout: no reply in 30 s" if errored else None,
            )
        )
    return RunData(experiment_id=f"exp-{name}", name=name, items=items)


def by_metric(results: list[MetricResult]) -> dict[str, MetricResult]:
    return {r.metric: r for r in results}


def test_a_a_comparison_has_no_regression_and_p_one() -> None:
    run = make_run("base")
    report = compare_runs(run, run)
    assert not report.regression
    assert report.n_pairs == 50
    for r in report.metrics:
        assert r.comparison.p_value == 1.0, r.metric
        expected = "informational" if r.metric == "latency_ms" else "no_significant_change"
        assert r.status == expected, r.metric
    assert report.verdict.startswith("PASS")


def test_synthetic_regression_is_flagged() -> None:
    baseline = make_run("base")
    candidate = make_run("cand", zero_items=15)  # same items, 30% return 0
    report = compare_runs(baseline, candidate)
    results = by_metric(report.metrics)
    assert report.regression
    assert {"faithfulness", "order_correctness"} <= set(report.regressions)
    faith = results["faithfulness"]
    assert faith.comparison.test == "sign_flip_monte_carlo"
    assert faith.comparison.delta is not None and faith.comparison.delta < -0.2
    assert faith.p_adjusted is not None and faith.p_adjusted < 0.05
    assert results["order_correctness"].comparison.test == "mcnemar_exact"
    assert results["latency_ms"].status == "informational"  # latency gates only under a budget
    assert report.verdict.startswith("FAIL")
    json.dumps(report.model_dump(mode="json"))  # serialisable


def test_same_seed_gives_the_same_report() -> None:
    baseline, candidate = make_run("base"), make_run("cand", seed=1)
    first = compare_runs(baseline, candidate, ComparisonConfig(seed=3))
    again = compare_runs(baseline, candidate, ComparisonConfig(seed=3))
    assert first.model_dump() == again.model_dump()


def test_latency_is_shown_but_gates_only_under_a_margin_or_budget_the_user_sets() -> None:
    baseline = make_run("base")
    slower = make_run("slow", latency_shift=150.0)
    # by default: compared, with its delta and interval, never a regression (two runs minutes apart
    # measure the machine as much as the change)
    shown = by_metric(compare_runs(baseline, slower).metrics)["latency_ms"]
    assert shown.status == "informational" and shown.role == "secondary"
    assert shown.comparison.delta == pytest.approx(150.0)
    assert "not gating" in shown.reason and "--threshold" in shown.reason
    assert not compare_runs(baseline, slower).regression
    # a relative margin: +20 % of the baseline's ~200 ms is ~40 ms, so +150 ms regresses
    margin = ComparisonConfig(thresholds={"latency_ms": "+20%"})
    report = compare_runs(baseline, slower, margin)
    latency = by_metric(report.metrics)["latency_ms"]
    assert latency.direction == "lower_is_better" and latency.role == "primary"
    assert latency.status == "regression" and report.regressions == ["latency_ms"]
    assert latency.threshold == pytest.approx(0.2 * latency.comparison.baseline.mean)  # type: ignore[operator]
    faster = compare_runs(baseline, make_run("fast", latency_shift=-150.0), margin)
    assert by_metric(faster.metrics)["latency_ms"].status == "improvement"
    assert not faster.regression
    within = compare_runs(baseline, make_run("bit-slower", latency_shift=20.0), margin)
    assert by_metric(within.metrics)["latency_ms"].status == "no_significant_change"  # < +20 %
    # an absolute threshold still works, and a budget on the 95th percentile is a gate
    absolute = compare_runs(baseline, slower, ComparisonConfig(thresholds={"latency_ms": 100.0}))
    assert absolute.regressions == ["latency_ms"]
    budget = compare_runs(baseline, slower, ComparisonConfig(gates=["latency_ms.p95<=300"]))  # type: ignore[list-item]
    assert not budget.gates_passed and budget.gates[0].gate == "latency_p95_ms<=300"
    assert budget.verdict.startswith("FAIL: 1 gate missed")


def test_a_relative_threshold_needs_a_baseline_mean_and_the_right_sign() -> None:
    with pytest.raises(ValueError, match="neither a number"):
        ComparisonConfig(thresholds={"latency_ms": "fast"})
    baseline = make_run("base")
    with pytest.raises(ComparisonError, match="wrong way"):
        compare_runs(baseline, baseline, ComparisonConfig(thresholds={"faithfulness": "+10%"}))


def test_errors_are_dropped_pairwise_and_compared_as_error_rate() -> None:
    baseline = make_run("base")
    candidate = make_run("cand", error_items=12)
    report = compare_runs(baseline, candidate)
    results = by_metric(report.metrics)
    assert (report.errors.baseline, report.errors.candidate) == (0, 12)
    assert results["faithfulness"].comparison.n_pairs == 38
    assert results["faithfulness"].comparison.n_dropped == 12
    assert results["faithfulness"].status == "no_significant_change"
    err = results["error_rate"]
    assert err.comparison.test == "mcnemar_exact"
    assert err.comparison.delta == pytest.approx(12 / 50)
    assert err.status == "regression"


def test_unmatched_items_are_reported_and_not_paired() -> None:
    baseline = make_run("base", n=10)
    candidate = make_run("cand", n=10)
    candidate.items[0].item_id = "new-item"
    del baseline.items[5]
    report = compare_runs(baseline, candidate)
    assert report.n_pairs == 8
    assert report.unmatched_baseline == [ItemKey(item_id="q000", trial=0)]
    assert report.unmatched_candidate == [ItemKey(item_id="new-item"), ItemKey(item_id="q005")]


def test_items_pair_by_trial_too() -> None:
    items = [ScoredItem(item_id="a", trial=t, status="ok", scores={"m": 0.5}) for t in range(3)]
    baseline = RunData(experiment_id="b", name="b", items=items)
    candidate = RunData(experiment_id="c", name="c", items=items[:2])
    report = compare_runs(baseline, candidate)
    assert report.n_pairs == 2
    assert report.unmatched_baseline == [ItemKey(item_id="a", trial=2)]


def test_holm_correction_can_remove_marginal_significance() -> None:
    # Each of several metrics alone has p ≈ 0.03 (McNemar 6 vs 0 discordant); Holm over 5 lifts them.
    n = 30
    base_scores = [{f"m{j}": 1.0 for j in range(5)} for _ in range(n)]
    cand_scores = [{f"m{j}": 0.0 if i < 6 else 1.0 for j in range(5)} for i in range(n)]
    baseline = RunData(
        experiment_id="b",
        name="b",
        items=[ScoredItem(item_id=str(i), status="ok", scores=s) for i, s in enumerate(base_scores)],
    )
    candidate = RunData(
        experiment_id="c",
        name="c",
        items=[ScoredItem(item_id=str(i), status="ok", scores=s) for i, s in enumerate(cand_scores)],
    )
    config = ComparisonConfig(include_error_rate=False, breakdown_keys=[], multiplicity="holm")
    report = compare_runs(baseline, candidate, config)
    for r in report.metrics:
        assert r.comparison.p_value == pytest.approx(2 * 0.5**6)
        # Tarone: at alpha/2 = 0.025 none of the five can be significant (6 discordant pairs give at
        # best 0.031), so the family has size 2, not 5; still none passes 2 x 0.031 < 0.05
        assert r.p_adjusted == pytest.approx(2 * 2 * 0.5**6)
        assert (r.family_size, r.in_family) == (2, False)
        assert r.status == "no_significant_change"
    single = compare_runs(baseline, candidate, config.model_copy(update={"metrics": ["m0"]}))
    assert single.metrics[0].status == "regression"


def test_breakdowns_are_their_own_family() -> None:
    baseline = make_run("base", n=60)
    candidate = make_run("cand", n=60)
    for item in candidate.items:  # only the 'menu' category collapses
        if item.metadata["category"] == "menu":
            item.scores["faithfulness"] = 0.1
    report = compare_runs(baseline, candidate)
    groups = {(b.key, b.value): b for b in report.breakdowns}
    assert set(groups) == {("category", c) for c in CATEGORIES}
    menu = by_metric(groups[("category", "menu")].metrics)["faithfulness"]
    order = by_metric(groups[("category", "order")].metrics)["faithfulness"]
    assert menu.status == "regression" and groups[("category", "menu")].n_pairs == 20
    assert order.status == "no_significant_change"
    assert "category=menu:faithfulness" in report.breakdown_regressions
    assert report.regression  # the overall mean drops by ~0.27 as well


def test_metric_selection_and_thresholds() -> None:
    baseline = make_run("base")
    candidate = make_run("cand", zero_items=15)
    for item in baseline.items:
        item.scores["only_base"] = 1.0
    loose = ComparisonConfig(metrics=["faithfulness"], thresholds={"faithfulness": -0.5})
    report = compare_runs(baseline, candidate, loose)
    assert [r.metric for r in report.metrics] == ["faithfulness"]
    assert report.metrics[0].threshold == -0.5
    assert report.metrics[0].status == "no_significant_change"  # delta ≈ -0.27 is within -0.5
    assert report.metrics_only_in_baseline == ["only_base"]
    with pytest.raises(ComparisonError, match="scored in neither run"):
        compare_runs(baseline, candidate, ComparisonConfig(metrics=["nope"]))
    with pytest.raises(ComparisonError, match="wrong way"):
        compare_runs(baseline, candidate, ComparisonConfig(thresholds={"faithfulness": 0.05}))


def test_duplicate_items_are_rejected() -> None:
    item = ScoredItem(item_id="a", status="ok", scores={"m": 1.0})
    run = RunData(experiment_id="b", name="b", items=[item, item])
    with pytest.raises(ComparisonError, match="twice"):
        compare_runs(run, run)


def test_empty_and_tiny_runs_are_inconclusive_not_regressions() -> None:
    empty = RunData(experiment_id="e", name="e")
    report = compare_runs(empty, empty)
    assert not report.regression and report.verdict.startswith("INCONCLUSIVE")
    one = RunData(
        experiment_id="o", name="o", items=[ScoredItem(item_id="a", status="ok", scores={"m": 1.0})]
    )
    worse = RunData(
        experiment_id="w", name="w", items=[ScoredItem(item_id="a", status="ok", scores={"m": 0.0})]
    )
    tiny = compare_runs(one, worse)
    assert by_metric(tiny.metrics)["m"].status == "insufficient_data"
    assert not tiny.regression


def test_run_scores_are_described() -> None:
    baseline = make_run("base", n=5)
    candidate = make_run("cand", n=5)
    baseline.run_scores = [Evaluation(name="macro_f1", value=0.8)]
    candidate.run_scores = [Evaluation(name="macro_f1", value=0.7), Evaluation(name="new", value=True)]
    deltas = {d.name: d for d in compare_runs(baseline, candidate).run_scores}
    assert deltas["macro_f1"].delta == pytest.approx(-0.1)
    assert deltas["new"].baseline is None and deltas["new"].delta is None


def test_direction_and_thresholds_come_from_the_specs_not_the_names() -> None:
    declared = REGISTRY.metric_specs(
        [
            EvaluatorSpec(name="retrieval"),
            EvaluatorSpec(name="faithfulness"),
            EvaluatorSpec(name="hallucination_rate"),
        ]
    )
    specs, config = MetricSpecs(declared=declared), ComparisonConfig()
    assert comparison_spec("recall@10", specs, config).signed_threshold() == -0.05
    assert comparison_spec("faithfulness", specs, config).signed_threshold() == -0.03
    assert comparison_spec("hallucination_rate", specs, config).signed_threshold() == 0.02
    assert comparison_spec("latency_ms", specs, config).signed_threshold() is None  # shown, not gating
    assert comparison_spec("error_rate", specs, config).lower_is_better
    # nothing is guessed from a name: an undeclared '_ms' or '_rate' metric is higher-is-better
    assert not comparison_spec("ttft_ms", specs, config).lower_is_better
    assert not comparison_spec("something_rate", specs, config).lower_is_better
    assert comparison_spec("something_new", specs, config).signed_threshold() == -0.05
    # the comparison's own overrides
    flipped = ComparisonConfig(lower_is_better=["cost"], thresholds={"faithfulness": -0.2})
    assert comparison_spec("cost", specs, flipped).lower_is_better
    assert comparison_spec("faithfulness", specs, flipped).signed_threshold() == -0.2
    # an experiment's '<=' pass criterion makes the metric lower-is-better in its comparisons
    strict = MetricSpecs(
        declared=declared, pass_criteria={"faithfulness": PassCriterion.model_validate("<=0.2")}
    )
    assert comparison_spec("faithfulness", strict, config).direction == "lower_is_better"


def test_absolute_gates_on_the_candidate_and_reasons() -> None:
    baseline, candidate = make_run("base"), make_run("cand", zero_items=15)
    config = ComparisonConfig(gates=["order_correctness>=0.9", "latency_ms<=1000"])  # type: ignore[list-item]
    report = compare_runs(baseline, candidate, config)
    assert [(g.gate, g.passed) for g in report.gates] == [
        ("order_correctness>=0.9", False),
        ("latency_ms<=1000", True),
    ]
    assert not report.gates_passed
    assert all(r.reason for r in report.metrics)
    assert "beyond the -0.05 threshold" in by_metric(report.metrics)["order_correctness"].reason


def _three_checks_run(name: str, broken: int) -> RunData:
    """20 answers checked by the "your app" guide's three evaluators: exact_match, contains and
    string_similarity measure the same thing. 17 of 20 match in the baseline; the candidate breaks
    ``broken`` of those (and fixes none)."""
    items = []
    for i in range(20):
        right = i >= 3 and not (3 <= i < 3 + broken)
        similarity = 0.95 + 0.002 * (i % 5) if right else 0.35 + 0.01 * (i % 4)
        items.append(
            ScoredItem(
                item_id=f"case-{i:02d}",
                status="ok",
                scores={
                    "exact_match": float(right),
                    "contains": float(right or i == 0),
                    "string_similarity": similarity,
                },
            )
        )
    return RunData(experiment_id=f"exp-{name}", name=name, items=items)


def test_near_copies_of_one_metric_do_not_hide_a_regression() -> None:
    """exact_match 0.85 -> 0.55 (six items broken, none fixed) is a regression alone; Holm over the
    three near-copies lifted it to 0.0625 and passed it. Westfall-Young, the default, keeps the
    correlation: the three together are a regression at an adjusted p close to the single one's."""
    specs = MetricSpecs(
        declared=REGISTRY.metric_specs(
            [EvaluatorSpec(name=n) for n in ("exact_match", "contains", "string_similarity")]
        )
    )
    baseline, candidate = _three_checks_run("v1", 0), _three_checks_run("v2", 6)
    base_config = {"include_latency": False, "include_error_rate": False, "breakdown_keys": []}
    alone = compare_runs(
        baseline,
        candidate,
        ComparisonConfig(metrics=["exact_match"], **base_config),
        specs,  # type: ignore[arg-type]
    )
    single_p = by_metric(alone.metrics)["exact_match"].p_adjusted
    assert alone.regression and single_p is not None and single_p < 0.05

    holm = compare_runs(baseline, candidate, ComparisonConfig(multiplicity="holm", **base_config), specs)  # type: ignore[arg-type]
    assert not holm.regression  # the old default: three chances for one measurement

    report = compare_runs(baseline, candidate, ComparisonConfig(**base_config), specs)  # type: ignore[arg-type]
    exact = by_metric(report.metrics)["exact_match"]
    assert report.regression and exact.status == "regression" and "p(WY)" in exact.reason
    assert exact.p_adjusted is not None and exact.p_adjusted < 1.5 * single_p
    assert report.verdict.startswith("FAIL: ")
    assert report.broken_total == 6 * 3 and report.fixed_total == 0
    assert [c.item_id for c in report.broken_items if c.metric == "exact_match"] == [
        f"case-{i:02d}" for i in range(3, 9)
    ]
