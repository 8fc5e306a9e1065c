"""`yardstick plan`'s arithmetic: pairs needed from one run's spread or pass rate."""

from __future__ import annotations

import pytest

from shared.analysis import ComparisonConfig, compare_runs
from shared.analysis.planning import PlanningError, plan_for, planned_and_measured
from shared.analysis.stats import mcnemar_power, planning_churn
from yardstick.api.run_aggregates import MetricAggregate
from yardstick.api.run_data import RunData, ScoredItem

pytestmark = pytest.mark.unit


def _aggregate(mean: float, sd: float, count: int, ci_method: str) -> MetricAggregate:
    return MetricAggregate(
        mean=mean, median=mean, p95=mean, sd=sd, ci_low=None, ci_high=None, ci_method=ci_method,
        count=count, none_count=0,
    )  # fmt: skip


def test_pass_fail_plan_uses_the_pass_rate_and_exact_mcnemar() -> None:
    plan = plan_for("exact_match", _aggregate(0.8, 0.4, 25, "wilson"), 0.1, family_size=4)
    assert plan.test == "mcnemar_exact" and plan.level == pytest.approx(0.0125)
    churn = planning_churn(0.8, 0.5)
    assert plan.noise == pytest.approx(churn)
    assert mcnemar_power(plan.pairs_needed, 0.1, churn, 0.0125) >= 0.8
    assert mcnemar_power(plan.pairs_needed - 1, 0.1, churn, 0.0125) < 0.8
    assert plan.mde_now is not None and plan.mde_now > 0.1  # 25 items cannot see 0.1


def test_continuous_plan_grows_as_the_change_shrinks() -> None:
    agg = _aggregate(0.9, 0.2, 25, "bootstrap")
    small, large = plan_for("oc", agg, 0.02), plan_for("oc", agg, 0.1)
    assert small.pairs_needed > large.pairs_needed >= 6
    with pytest.raises(PlanningError):
        plan_for("oc", _aggregate(0.9, 0.2, 1, "bootstrap"), 0.1)


def _run(name: str, values: list[float]) -> RunData:
    items = [ScoredItem(item_id=str(i), status="ok", scores={"m": v}) for i, v in enumerate(values)]
    return RunData(experiment_id=name, name=name, items=items)


@pytest.mark.parametrize(
    ("baseline", "candidate", "ci_method"),
    [
        # exact_match on 20 items: 14 pass in the baseline, two break and one is fixed
        ([1.0] * 14 + [0.0] * 6, [0.0, 0.0] + [1.0] * 12 + [1.0] + [0.0] * 5, "wilson"),
        # a continuous score with some noise
        (
            [0.2 + 0.04 * i for i in range(20)],
            [0.2 + 0.04 * i + (0.05 if i % 3 else -0.08) for i in range(20)],
            "t",
        ),
    ],
)
def test_the_plan_and_the_comparison_agree_on_the_same_inputs(
    baseline: list[float], candidate: list[float], ci_method: str
) -> None:
    """One definition: the plan, given the comparison's n, noise and family size, predicts the MDE
    the comparison measured; by default its inputs differ exactly as its sentences say."""
    report = compare_runs(_run("b", baseline), _run("c", candidate), ComparisonConfig(breakdown_keys=[]))
    measured = next(r for r in report.metrics if r.metric == "m")
    mde = measured.mde
    assert mde is not None and mde.effect is not None and measured.family_size is not None
    n = len(candidate)
    mean = sum(candidate) / n
    sd = (sum((v - mean) ** 2 for v in candidate) / (n - 1)) ** 0.5
    if ci_method == "wilson":
        # the correlation whose churn 2(1 - r)p(1 - p) is the churn the pairs showed
        correlation = 1.0 - mde.spread / (2.0 * mean * (1.0 - mean))
    else:
        # the correlation whose SD of differences sqrt(2(1 - r))·sd is the one the pairs showed
        correlation = 1.0 - (mde.spread / sd) ** 2 / 2.0
    aggregate = _aggregate(mean, sd, n, ci_method)
    same = plan_for("m", aggregate, 0.1, family_size=measured.family_size, correlation=correlation)
    assert same.level == pytest.approx(mde.alpha)
    assert same.noise == pytest.approx(mde.spread)
    assert same.mde_now == pytest.approx(mde.effect, rel=1e-6)

    default = plan_for("m", aggregate, 0.1, family_size=3)  # the run's metric, error_rate, latency
    planned, compared = planned_and_measured(default, measured, "b")
    assert planned.startswith(f"planned  ±{default.mde_now:.3g}: predicted before comparing")
    assert f"assumed correlation 0.5 between runs, at alpha/3 = {0.05 / 3:.3g}" in planned
    assert compared.startswith(f"measured ±{mde.effect:.3g}: what the comparison with b reports")
    assert f"({mde.spread:.3g}) on {n} pairs, at alpha/{measured.family_size} = {mde.alpha:.3g}" in compared
    assert planned_and_measured(default, None, "") == [planned]
