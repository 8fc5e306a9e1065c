"""`yardstick plan`'s arithmetic: pairs needed from one run's spread or pass rate."""

from __future__ import annotations

import pytest

from shared.analysis.planning import PlanningError, plan_for
from shared.analysis.stats import mcnemar_power, planning_churn
from yardstick.api.run_aggregates import MetricAggregate

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
