"""Agreement between two raters over the same items: a judge against a person's labels (the
reference), or two people. Pure NumPy / SciPy.

Labels are given in item order, one sequence per rater; an item where either label is ``None`` (or a
float NaN) is left out and counted in ``n_dropped``. The categories are always passed explicitly, so
a category nobody used still has its row and column (and, on a scale, its place in the weights);
a label outside them is a ``StatsInputError``.

Intervals (the tests check their coverage by simulation at n = 30 and n = 200):
- proportions (agreement, true-positive and true-negative rates): Wilson score;
- κ and weighted κ: Fisher z with the delete-one jackknife standard error of z; where that is
  degenerate (κ = 1, e.g. every item agrees) an adjusted Wald interval (``kappa_interval``);
- Spearman's rho: Fisher z with the delete-one jackknife standard error of z (the textbook
  Bonett-Wright and Fieller errors assume untied ranks and under-cover on a 1-5 scale).
Undefined numbers are ``None`` with a reason, never NaN: κ below two items or when the expected
agreement is 1 (both raters gave one and the same label throughout), rho when a rater is constant.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np

from shared.analysis.stats.agreement_tables import (
    IntArray,
    KappaWeights,
    agreement_weights,
    contingency,
    kappa_interval,
    kappa_parts,
    spearman_from_tables,
    spearman_interval,
)
from shared.analysis.stats.descriptive import wilson_bounds
from shared.analysis.stats.errors import StatsInputError
from yardstick.api.agreement import (
    BinaryAgreement,
    CategoricalAgreement,
    ConfusionMatrix,
    Estimate,
    IntervalMethod,
    KappaWeighting,
    Label,
    OrdinalAgreement,
    Proportion,
)

Labels = Sequence[Label | float | None]
"""One rater's labels in item order; ``None`` (or NaN) marks an item the rater did not label."""
_NO_ITEMS = "no item has both labels"


def binary_agreement(
    reference: Labels,
    judge: Labels,
    *,
    positive: Label = True,
    negative: Label = False,
    confidence: float = 0.95,
) -> BinaryAgreement:
    """Agreement, κ, and the judge's true-positive / true-negative rates against the reference."""
    check_confidence(confidence)
    categories = [negative, positive]
    (ref, jud), dropped = encode_labels([reference, judge], categories)
    table = contingency(ref, jud, 2)
    tn, fp, fn, tp = (int(c) for c in table.ravel())
    return BinaryAgreement(
        n=int(ref.size),
        n_dropped=dropped,
        positive=positive,
        negative=negative,
        observed_agreement=proportion(tp + tn, int(ref.size), confidence, _NO_ITEMS),
        kappa=kappa_estimate(table, "none", confidence),
        true_positive_rate=proportion(tp, tp + fn, confidence, f"the reference never said {positive!r}"),
        true_negative_rate=proportion(tn, tn + fp, confidence, f"the reference never said {negative!r}"),
        confusion=confusion_matrix(table, categories),
        true_positives=tp,
        false_negatives=fn,
        false_positives=fp,
        true_negatives=tn,
    )


def ordinal_agreement(
    reference: Labels,
    judge: Labels,
    *,
    categories: Sequence[int],
    weights: KappaWeighting = "quadratic",
    confidence: float = 0.95,
) -> OrdinalAgreement:
    """Weighted κ (quadratic by default), plain κ and Spearman's rho on an integer scale.

    ``categories`` is the whole scale in increasing order (e.g. ``range(1, 6)``); the κ weights use
    positions on it, as scikit-learn's ``cohen_kappa_score(..., labels=categories)`` does.
    """
    check_confidence(confidence)
    scale = list(categories)
    if any(not isinstance(c, int) for c in scale) or any(b <= a for a, b in itertools.pairwise(scale)):
        raise StatsInputError(f"an ordinal scale is increasing integers, e.g. [1, 2, 3, 4, 5]; got {scale}")
    (ref, jud), dropped = encode_labels([reference, judge], scale)
    table = contingency(ref, jud, len(scale))
    return OrdinalAgreement(
        n=int(ref.size),
        n_dropped=dropped,
        weights=weights,
        weighted_kappa=kappa_estimate(table, weights, confidence),
        kappa=kappa_estimate(table, "none", confidence),
        spearman=spearman_estimate(table, confidence),
        observed_agreement=proportion(int(np.trace(table)), int(ref.size), confidence, _NO_ITEMS),
        confusion=confusion_matrix(table, scale),
    )


def categorical_agreement(
    reference: Labels, judge: Labels, *, categories: Sequence[Label], confidence: float = 0.95
) -> CategoricalAgreement:
    """Cohen's κ and the share of equal labels over a fixed set of categories."""
    check_confidence(confidence)
    (ref, jud), dropped = encode_labels([reference, judge], list(categories))
    table = contingency(ref, jud, len(categories))
    return CategoricalAgreement(
        n=int(ref.size),
        n_dropped=dropped,
        kappa=kappa_estimate(table, "none", confidence),
        observed_agreement=proportion(int(np.trace(table)), int(ref.size), confidence, _NO_ITEMS),
        confusion=confusion_matrix(table, list(categories)),
    )


def check_confidence(confidence: float) -> None:
    if not 0.0 < confidence < 1.0:
        raise StatsInputError(f"confidence must be strictly between 0 and 1, got {confidence} (e.g. 0.95)")


def encode_labels(raters: Sequence[Labels], categories: Sequence[Label]) -> tuple[IntArray, int]:
    """Category indices, shape ``(raters, items)``, of the items every rater labelled, and the
    number of items dropped because some rater's label was missing."""
    if len(categories) < 2:
        raise StatsInputError(f"agreement needs at least two categories, got {list(categories)}")
    index = {c: i for i, c in enumerate(categories)}
    if len(index) != len(categories):
        raise StatsInputError(f"categories must be distinct, got {list(categories)}")
    lengths = {len(r) for r in raters}
    if len(lengths) != 1:
        raise StatsInputError(f"every rater needs one label per item; got lengths {sorted(lengths)}")
    codes = np.full((len(raters), lengths.pop()), -1, dtype=np.int64)
    for r, labels in enumerate(raters):
        for i, label in enumerate(labels):
            if label is None or (isinstance(label, float) and math.isnan(label)):
                continue
            if isinstance(label, float):  # 3.0 from a float column is the scale point 3
                label = int(label) if label.is_integer() else str(label)
            code = index.get(label)
            if code is None:
                raise StatsInputError(
                    f"label {label!r} (item {i}) is not one of the categories {list(categories)}"
                )
            codes[r, i] = code
    complete = np.all(codes >= 0, axis=0)
    kept: IntArray = codes[:, complete]
    return kept, int(np.count_nonzero(~complete))


def confusion_matrix(table: IntArray, categories: Sequence[Label]) -> ConfusionMatrix:
    return ConfusionMatrix(labels=list(categories), counts=table.tolist())


def proportion(count: int, total: int, confidence: float, empty_reason: str) -> Proportion:
    """``count`` / ``total`` with its Wilson interval; ``None`` with ``empty_reason`` when total is 0."""
    if total == 0:
        return Proportion(
            value=None, ci_low=None, ci_high=None, confidence=confidence, method="wilson",
            reason=empty_reason, count=count, total=total,
        )  # fmt: skip
    low, high = wilson_bounds(count, total, confidence)
    return Proportion(
        value=count / total, ci_low=low, ci_high=high, confidence=confidence, method="wilson",
        count=count, total=total,
    )  # fmt: skip


def kappa_estimate(table: IntArray, weights: KappaWeights, confidence: float) -> Estimate:
    """κ of one table (``weights``: none, linear, quadratic) with its interval (``kappa_interval``)."""
    w = agreement_weights(table.shape[0], weights)
    kappa, _, _, n = (float(x) for x in kappa_parts(table, w))
    reason = None
    if n < 2:
        reason = f"κ needs at least 2 items labelled by both raters, got {int(n)}"
    elif math.isnan(kappa):
        reason = "κ is undefined: the expected agreement is 1 (both raters gave one and the same label)"
    if reason is not None:
        return Estimate(value=None, ci_low=None, ci_high=None, confidence=confidence,
                        method="fisher_z_jackknife", reason=reason)  # fmt: skip
    low, high, jack = (x.item() for x in kappa_interval(table, w, confidence))
    method: IntervalMethod = "fisher_z_jackknife" if jack else "fce_adjusted_wald"
    return Estimate(value=kappa, ci_low=low, ci_high=high, confidence=confidence, method=method)


def spearman_estimate(table: IntArray, confidence: float) -> Estimate:
    """Spearman's rho of the table's pairs with its Fisher-z interval (jackknife SE, else Bonett-Wright)."""
    n = int(table.sum())
    rho = float(spearman_from_tables(table))
    if n < 2 or math.isnan(rho):
        why = f"got {n} items" if n < 2 else "a rater gave the same label to every item"
        return _spearman(None, None, None, confidence, f"rho is undefined: {why}", jackknife=True)
    low, high, jack = (x.item() for x in spearman_interval(table, confidence))
    if math.isnan(low):
        why = "rho = ±1 (Fisher z is infinite)" if abs(rho) >= 1.0 else f"an interval needs 4 items, got {n}"
        return _spearman(rho, None, None, confidence, why, jackknife=True)
    return _spearman(rho, low, high, confidence, None, jackknife=bool(jack))


def _spearman(
    rho: float | None, low: float | None, high: float | None, confidence: float, reason: str | None,
    *, jackknife: bool,
) -> Estimate:  # fmt: skip
    method: IntervalMethod = "fisher_z_jackknife" if jackknife else "fisher_z_bonett_wright"
    return Estimate(value=rho, ci_low=low, ci_high=high, confidence=confidence, method=method, reason=reason)
