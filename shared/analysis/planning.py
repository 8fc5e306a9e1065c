"""How many items a change needs: the pure planning behind `yardstick plan` and ``POST /plans``
(``PlanRequest`` is that endpoint's body, shared so the CLI can build it without the coordinator).

From one finished run's summary of a metric (its SD, or its pass rate for 0/1 scores) and an assumed
correlation r between two runs' scores of the same item, the noise of the paired differences is
s = sqrt(2(1 - r))·sd, or for pass/fail the churn v = 2(1 - r)·p(1 - p) (``shared.analysis.stats.power``
has the formulas). The level is alpha / family size, as in a comparison's MDE: the level a lone
change must reach in a Holm family of that many metrics.

The plan's ``mde_now`` and a comparison's ``mde`` are one definition (``mde_pass_fail`` /
``mde_continuous`` of n, the noise and the level) on different inputs, because they answer different
questions: the plan *predicts*, before any comparison, from one run's pass rate or SD and an assumed
correlation, counting every metric in the family; the comparison *measures*, from the churn or the
SD of differences its pairs showed, at Tarone's family size (a metric that cannot be significant
leaves the family). Given the same n, noise and family size they are equal
(``tests/shared/analysis/test_planning.py``); ``planned_and_measured`` prints them side by side.
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
from yardstick.api.comparison_report import MetricResult
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


def _change(effect: float | None) -> str:
    return "no change" if effect is None else f"±{effect:.3g}"


def planned_and_measured(plan: PowerPlan, measured: MetricResult | None, baseline: str) -> list[str]:
    """What this run's size detects, side by side: the plan's prediction and, when the run was
    compared with ``baseline``, the comparison's measured MDE of the same metric; one sentence each
    saying where its number comes from."""
    noise = (
        f"this run's pass rate {plan.baseline_mean:.3f} (churn {plan.noise:.3g})"
        if plan.test == "mcnemar_exact"
        else f"this run's SD {plan.baseline_sd:.3g} (SD of differences {plan.noise:.3g})"
    )
    lines = [
        f"planned  {_change(plan.mde_now)}: predicted before comparing, from {noise} and an assumed "
        f"correlation {plan.correlation:g} between runs, at alpha/{plan.family_size} = {plan.level:.3g} "
        "(every metric counted)"
    ]
    mde = None if measured is None else measured.mde
    if measured is None or mde is None:
        return lines
    basis = {
        "discordance": f"the churn its pairs showed ({mde.spread:.3g})",
        "paired_differences": f"the SD of differences its pairs showed ({mde.spread:.3g})",
        "baseline_spread": f"the baseline's SD ({mde.spread:.3g}; every difference was equal)",
    }[mde.basis]
    size = measured.family_size or 1
    lines.append(
        f"measured {_change(mde.effect)}: what the comparison with {baseline} reports, from {basis} on "
        f"{mde.n_pairs} pairs, at alpha/{size} = {mde.alpha:.3g} (only the metrics that could be "
        "significant counted)"
    )
    return lines


__all__ = ["PlanningError", "plan_for", "planned_and_measured"]
