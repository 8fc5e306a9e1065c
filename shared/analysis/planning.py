"""How many items a change needs: the pure planning behind `yardstick plan` and ``POST /plans``
(``PlanRequest`` is that endpoint's body, shared so the CLI can build it without the coordinator).

From one finished run's summary of a metric (its SD, or its pass rate for 0/1 scores) and an assumed
correlation r between two runs' scores of the same item, the noise of the paired differences is
s = sqrt(2(1 - r))·sd, or for pass/fail the churn v = 2(1 - r)·p(1 - p) (``shared.analysis.stats.power``
has the formulas). The level is alpha / family size, as in a comparison's MDE: the level a lone
change must reach in a Holm family of that many metrics.
"""

from __future__ import annotations

from shared.analysis.stats import (
    DEFAULT_POWER,
    mde_continuous,
    mde_pass_fail,
    pairs_for_continuous,
    pairs_for_pass_fail,
    planning_churn,
    planning_spread,
)
from yardstick.api.planning import PowerPlan
from yardstick.api.run_aggregates import MetricAggregate


class PlanningError(ValueError):
    """The plan cannot be made as asked (no values, a change larger than the metric allows)."""


def plan_for(
    metric: str,
    aggregate: MetricAggregate,
    drop: float,
    *,
    alpha: float = 0.05,
    power: float = DEFAULT_POWER,
    family_size: int = 1,
    correlation: float = 0.5,
) -> PowerPlan:
    """The plan for ``metric`` summarised by ``aggregate``; raises ``PlanningError``."""
    if aggregate.mean is None or aggregate.count < 2:
        raise PlanningError(f"{metric!r} has {aggregate.count} value(s) in this run: too few to plan from")
    if drop == 0.0:
        raise PlanningError("the change to detect must not be 0 (e.g. --drop 0.05)")
    level = alpha / max(1, family_size)
    sd = aggregate.sd or 0.0
    binary = aggregate.ci_method == "wilson"
    if binary:
        churn = planning_churn(aggregate.mean, correlation)
        if abs(drop) + churn > 1.0:
            raise PlanningError(f"a change of {abs(drop):g} plus churn {churn:.3g} exceeds 1 for a pass rate")
        noise = churn
        needed = pairs_for_pass_fail(drop, churn, level, power)
        mde_now = mde_pass_fail(aggregate.count, churn, level, power)
    else:
        noise = planning_spread(sd, correlation)
        needed = pairs_for_continuous(drop, noise, level, power)
        mde_now = mde_continuous(aggregate.count, noise, level, power) if noise > 0 else None
    return PowerPlan(
        metric=metric,
        test="mcnemar_exact" if binary else "sign_flip",
        drop=abs(drop),
        baseline_mean=aggregate.mean,
        baseline_sd=sd,
        correlation=correlation,
        noise=noise,
        alpha=alpha,
        family_size=family_size,
        level=level,
        power=power,
        pairs_needed=needed,
        items_now=aggregate.count,
        mde_now=mde_now,
    )


__all__ = ["PlanningError", "plan_for"]
