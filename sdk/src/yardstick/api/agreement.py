"""Agreement between two raters (a judge and a person, or two people) over the same items: pure
result models, so that a calibration report loads and serialises without NumPy or SciPy. Computed by
``shared.analysis.stats.agreement``; every number a user sees carries its interval and the method's name.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

Label = str | bool | int
"""One rater's label for one item: pass/fail as a bool (or 0/1, or two strings), a point of an
integer scale, or one of a fixed set of names."""

IntervalMethod = Literal[
    "wilson",
    "fce_adjusted_wald",
    "fisher_z_jackknife",
    "fisher_z_bonett_wright",
    "paired_jackknife_t",
    "paired_bootstrap_percentile",
]
KappaWeighting = Literal["linear", "quadratic"]
AgreementStatistic = Literal["agreement", "kappa", "linear_kappa", "quadratic_kappa"]


class Estimate(BaseModel, frozen=True):
    """A statistic with its interval; ``value`` / the bounds are ``None`` (never NaN) when they
    cannot be computed, and ``reason`` says why."""

    value: float | None = Field(description="The point estimate; None when undefined (see reason)")
    ci_low: float | None = Field(description="Lower bound of the interval; None when it cannot be computed")
    ci_high: float | None = Field(description="Upper bound of the interval")
    confidence: float = Field(description="Confidence level of the interval, e.g. 0.95")
    method: IntervalMethod = Field(
        description="How the interval was computed: wilson (score interval of a proportion); "
        "fce_adjusted_wald (κ ± z·SE with the Fleiss-Cohen-Everitt large-sample variance, centre and "
        "variance taken on the table plus z² pseudo-items spread over its cells, clipped to [-1, 1]); "
        "fisher_z_jackknife (tanh(atanh(x) ± z·SE) for x = κ or Spearman's rho, SE the delete-one-item "
        "jackknife of atanh(x)); fce_adjusted_wald for κ and fisher_z_bonett_wright (SE "
        "sqrt((1 + rho²/2)/(n - 3))) for rho are used where the jackknife is degenerate (an estimate "
        "of ±1, or one item carrying all of a rater's variation); "
        "paired_jackknife_t (difference ± t(n - 1)·SE, SE the delete-one-item jackknife); "
        "paired_bootstrap_percentile (percentile interval of resampled items, where the jackknife is "
        "undefined)"
    )
    reason: str | None = Field(default=None, description="Why the value or the interval is missing")


class Proportion(Estimate, frozen=True):
    """A share of items (``count`` / ``total``) with its Wilson interval."""

    count: int = Field(description="Items counted in the numerator")
    total: int = Field(description="Items in the denominator")


class ConfusionMatrix(BaseModel, frozen=True):
    """Counts of items by (reference label, judge label); empty categories keep their row/column."""

    labels: list[Label] = Field(description="The categories, in the order of the rows and the columns")
    counts: list[list[int]] = Field(
        description="counts[i][j]: items the reference labelled labels[i] and the judge labels[j]"
    )


class BinaryAgreement(BaseModel, frozen=True):
    """A judge's pass/fail labels against a reference's (the person), on the items both labelled."""

    n: int = Field(description="Items labelled by both raters")
    n_dropped: int = Field(description="Items left out because either rater's label was missing")
    positive: Label = Field(description="The label counted as positive (e.g. pass)")
    negative: Label = Field(description="The label counted as negative (e.g. fail)")
    observed_agreement: Proportion = Field(description="Share of items where the two labels are equal")
    kappa: Estimate = Field(description="Cohen's κ (chance-corrected agreement)")
    true_positive_rate: Proportion = Field(
        description="Share of the reference's positives the judge also called positive (sensitivity)"
    )
    true_negative_rate: Proportion = Field(
        description="Share of the reference's negatives the judge also called negative (specificity)"
    )
    confusion: ConfusionMatrix = Field(description="Reference (rows) x judge (columns), [negative, positive]")
    true_positives: int = Field(description="Both positive")
    false_negatives: int = Field(description="Reference positive, judge negative")
    false_positives: int = Field(description="Reference negative, judge positive")
    true_negatives: int = Field(description="Both negative")


class OrdinalAgreement(BaseModel, frozen=True):
    """Two raters on an integer scale (e.g. 1-5), on the items both labelled."""

    n: int = Field(description="Items labelled by both raters")
    n_dropped: int = Field(description="Items left out because either rater's label was missing")
    weights: KappaWeighting = Field(description="Weighting of ``weighted_kappa`` by distance on the scale")
    weighted_kappa: Estimate = Field(description="Weighted Cohen's κ: near misses count as partial agreement")
    kappa: Estimate = Field(description="Unweighted Cohen's κ: only exact matches agree")
    spearman: Estimate = Field(description="Spearman's rank correlation rho (mid-ranks for ties)")
    observed_agreement: Proportion = Field(description="Share of items with exactly the same label")
    confusion: ConfusionMatrix = Field(description="Reference (rows) x judge (columns), the scale in order")


class CategoricalAgreement(BaseModel, frozen=True):
    """Two raters choosing from a fixed set of categories, on the items both labelled."""

    n: int = Field(description="Items labelled by both raters")
    n_dropped: int = Field(description="Items left out because either rater's label was missing")
    kappa: Estimate = Field(description="Cohen's κ")
    observed_agreement: Proportion = Field(description="Share of items with the same label")
    confusion: ConfusionMatrix = Field(description="Reference (rows) x judge (columns)")


class JudgeComparison(BaseModel, frozen=True):
    """Two judges scored against the same reference labels on the same items: which agrees better.

    ``difference`` = statistic(judge B) - statistic(judge A), with a paired jackknife interval over
    items (paired bootstrap percentile where the jackknife is undefined). ``p_value`` is two-sided,
    from the paired swap (permutation) test: under the null hypothesis that the two judges are
    exchangeable on every item, swapping their labels on a random subset of items leaves the
    distribution unchanged; p = (1 + #{|d*| ≥ |d|}) / (R + 1). ``better`` and ``verdict`` follow
    the p-value at level 1 - confidence.
    """

    n: int = Field(description="Items labelled by the reference and by both judges")
    n_dropped: int = Field(description="Items left out because any of the three labels was missing")
    statistic: AgreementStatistic = Field(description="What is compared: agreement, or κ (plain or weighted)")
    name_a: str = Field(description="Display name of judge A (the baseline)")
    name_b: str = Field(description="Display name of judge B (the candidate)")
    judge_a: Proportion | Estimate = Field(
        description="The statistic for judge A against the reference, with its own interval (a Proportion "
        "with counts for agreement)"
    )
    judge_b: Proportion | Estimate = Field(description="The statistic for judge B against the reference")
    difference: Estimate = Field(description="B - A with its paired interval (method says which)")
    p_value: float | None = Field(description="Two-sided paired swap-permutation p-value; None if untestable")
    test: Literal["paired_swap_permutation"] = Field(
        default="paired_swap_permutation", description="The test that gave ``p_value``"
    )
    better: Literal["a", "b"] | None = Field(
        description="The judge that agrees better at level 1 - confidence; None when not detectable"
    )
    verdict: str = Field(description="One sentence for the report, with the numbers it rests on")
    resamples: int = Field(description="Random swaps drawn for the p-value (and bootstrap resamples if used)")
    seed: int = Field(
        description="Seed of numpy.random.default_rng: seed for the bootstrap, seed + 1 for swaps"
    )
