"""What a comparison could have seen: Holm-Tarone families, the MDE of each metric, "too few items".

- ``tarone_family``: one multiplicity family's adjusted p-values (Holm with Tarone's family sizes,
  ``shared.analysis.stats.holm_tarone_adjust``), each metric's family size and whether it counted. A metric
  that cannot be significant whatever the signs of its changes (no discordant pair, no non-zero
  difference, or too few of them) leaves the family, so the others keep their power.
- ``too_few_items``: the reason a metric could not be significant with any outcome at its number of
  pairs (the test's smallest p-value ≥ alpha), e.g. exact McNemar on 4 pairs (at best 0.125).
  ``comparison.verdict`` makes that the status ``insufficient_data``: too few items, like n < 2.
- ``detectable_effect``: the MDE at 80 % power at alpha / family size (``MinimumDetectableEffect``
  says why that level), from the paired differences' SD, or the baseline's SD when every difference
  is equal, or for 0/1 values from the churn 2·min(b, c)/n.
"""

from __future__ import annotations

from dataclasses import dataclass

from shared.analysis.stats.attainable import min_p_at_n, pairs_needed_for
from shared.analysis.stats.multiple_testing import holm_tarone_adjust, tarone_size
from shared.analysis.stats.power import DEFAULT_POWER, mde_continuous, mde_pass_fail
from yardstick.api.comparison_report import MetricResult, MinimumDetectableEffect
from yardstick.api.statistics import PairedComparison

_TEST_NAMES = {
    "mcnemar_exact": "exact McNemar",
    "sign_flip_exact": "the exact sign-flip test",
    "sign_flip_monte_carlo": "the Monte Carlo sign-flip test",
    "paired_bootstrap": "the paired bootstrap",
}


@dataclass(frozen=True)
class FamilyMember:
    """One metric's place in its Holm-Tarone family."""

    p_adjusted: float | None
    size: int | None
    in_family: bool | None


def tarone_family(comparisons: list[PairedComparison], alpha: float) -> list[FamilyMember]:
    """Holm-Tarone adjusted p-values, family sizes (counting the metric) and membership."""
    p_values = [c.p_value for c in comparisons]
    floors = [c.min_p_value for c in comparisons]
    adjusted = holm_tarone_adjust(p_values, floors, alpha)
    tested = [i for i, p in enumerate(p_values) if p is not None]
    tested_floors = [floors[i] or 0.0 for i in tested]
    size = tarone_size(tested_floors, alpha)
    out = [FamilyMember(p, None, None) for p in adjusted]
    for pos, i in enumerate(tested):
        inside = tested_floors[pos] <= alpha / size
        own = size if inside else tarone_size([*tested_floors[:pos], 0.0, *tested_floors[pos + 1 :]], alpha)
        out[i] = FamilyMember(adjusted[i], own, inside)
    return out


def too_few_items(comp: PairedComparison, alpha: float) -> str | None:
    """Why no outcome could be significant with this many pairs, or None when one could."""
    if comp.test is None:
        return None
    best = min_p_at_n(comp.test, comp.n_pairs)
    if best < alpha:
        return None
    return (
        f"too few items to detect any change: with {comp.n_pairs} pairs the smallest p-value "
        f"{_TEST_NAMES.get(comp.test, comp.test)} can give is {best:.3g} >= alpha {alpha:g}; "
        f"at least {pairs_needed_for(comp.test, alpha)} pairs are needed"
    )


def detectable_effect(
    comp: PairedComparison, level: float, power: float = DEFAULT_POWER
) -> MinimumDetectableEffect | None:
    """The MDE of ``comp``'s test at ``level``; None when untested (no test, no spread at all)."""
    if comp.test is None:
        return None
    n = comp.n_pairs
    if comp.mcnemar is not None:
        basis, spread = "discordance", 2.0 * min(comp.mcnemar.baseline_only, comp.mcnemar.candidate_only) / n
        effect = mde_pass_fail(n, spread, level, power)
    else:
        basis, spread = "paired_differences", comp.differences_sd or 0.0
        if spread <= 0.0:
            basis, spread = "baseline_spread", comp.baseline.sd or 0.0
        effect = mde_continuous(n, spread, level, power) if spread > 0.0 else None
    return MinimumDetectableEffect(
        effect=effect,
        alpha=level,
        power=power,
        n_pairs=n,
        test=comp.test,
        basis=basis,  # type: ignore[arg-type]  # one of the three literals above
        spread=spread,
        min_p=min_p_at_n(comp.test, n),
        pairs_needed=pairs_needed_for(comp.test, level),
    )


def with_power(result: MetricResult, member: FamilyMember, alpha: float, holm: bool = True) -> MetricResult:
    """``result`` with its family, MDE and, for "no significant change", what it could have seen
    (``holm``: its p-value was adjusted by Holm-Tarone, which leaves such a metric out)."""
    size = member.size or 1
    mde = detectable_effect(result.comparison, alpha / size)
    reason = result.reason
    if result.status == "no_significant_change" and mde is not None:
        reason += "; " + describe_mde(mde, size)
    if member.in_family is False and result.status == "no_significant_change":
        reason += (
            f"; it cannot be significant whatever the signs of its changes (the smallest p-value its "
            f"test could give on these pairs is {result.comparison.min_p_value:.3g} > {alpha / size:.3g})"
            + (", so it is left out of the Holm family" if holm else "")
        )
    return result.model_copy(
        update={"mde": mde, "family_size": member.size, "in_family": member.in_family, "reason": reason}
    )


def unconfirmed(result: MetricResult) -> str | None:
    """'order_correctness -0.109 (MDE ±0.133)' for a metric whose delta passes its threshold in the
    bad direction without being significant; None otherwise."""
    c, mde = result.comparison, result.mde
    if result.status not in ("no_significant_change", "insufficient_data") or c.delta is None:
        return None
    if result.threshold is None:  # informational: no threshold to pass
        return None
    sign = -1.0 if result.direction == "lower_is_better" else 1.0
    if sign * c.delta >= sign * result.threshold:
        return None
    detectable = "no change detectable" if mde is None or mde.effect is None else f"MDE ±{mde.effect:.3g}"
    return f"{result.metric} {c.delta:+.3g} ({detectable})"


def describe_mde(mde: MinimumDetectableEffect, family_size: int) -> str:
    """'could detect a change of ±0.12 (80 % power, alpha/4 = 0.0125, n = 25, sign-flip test)'."""
    level = f"alpha/{family_size} = {mde.alpha:.3g}" if family_size > 1 else f"alpha {mde.alpha:.3g}"
    test = _TEST_NAMES.get(mde.test, mde.test)
    if mde.effect is None:
        why = (
            f"at least {mde.pairs_needed} pairs needed"
            if mde.min_p >= mde.alpha
            else ("no spread to estimate it from" if mde.spread <= 0.0 else "not even the largest change")
        )
        return f"could not detect any change at {level} with {mde.n_pairs} pairs ({why}, {test})"
    return (
        f"could detect a change of ±{mde.effect:.3g} ({mde.power:.0%} power, {level}, "
        f"n = {mde.n_pairs}, {test}, from the {mde.basis.replace('_', ' ')})"
    )


__all__ = [
    "FamilyMember",
    "describe_mde",
    "detectable_effect",
    "tarone_family",
    "too_few_items",
    "with_power",
]
