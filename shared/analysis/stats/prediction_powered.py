"""Prediction-powered inference (Angelopoulos, Bates, Fannjiang, Jordan, Zrnic, "Prediction-powered
inference", Science 382, 2023) of a mean: a judge's scores of many items, corrected by people's labels
of a few, give the people's mean with an interval that is valid whatever the judge's bias.

With the n labelled items' labels Y and judge scores Yhat, and the judge's scores Yhat_u of the N
items nobody labelled (the paper's unlabelled set, disjoint from the labelled one), all on the
people's scale:

- estimate = mean(Yhat_u) + mean(Y - Yhat), the second term (the *rectifier*) removing the judge's
  bias; this is ppi-python 0.2.3's ``ppi_mean_pointestimate(Y, Yhat, Yhat_u, lam=1)``;
- interval = estimate ± z·sqrt(var(Yhat_u)/N + var(Y - Yhat)/n), z the normal quantile and var the
  population variance (ddof = 0) as ppi-python's ``ppi_mean_ci(Y, Yhat, Yhat_u, alpha, lam=1)`` takes
  it (a CLT interval).

Rules: the point estimate and every interval are clipped to the scale's range (intervals never leave
it; the unclipped numbers are ``ppi_mean_interval``'s); a value outside the scale is a
``StatsInputError``; an item whose label or judge score is missing (None / NaN) is left out. Below two
labelled items, or with no unlabelled item, there is no PPI estimate (None, and the reason says why);
the judge-only estimate (every judged item) and the labels-only estimate (Wilson for 0/1 labels, the
bootstrap or t otherwise, as ``summarize`` chooses) are still given. The labelled items must be a
uniform random sample of the population for the estimate to mean the population's people's mean.
"""

from __future__ import annotations

import math
from typing import cast

import numpy as np
from scipy.special import ndtri  # type: ignore[import-untyped]

from shared.analysis.stats.cleaning import FloatArray, Values, drop_missing, pair_values
from shared.analysis.stats.descriptive import clip_to_range, summarize
from shared.analysis.stats.errors import StatsInputError
from yardstick.api.prediction_powered import MeanEstimate, MeanMethod, PredictionPoweredMean


def ppi_mean_interval(
    human: FloatArray, judge_labelled: FloatArray, judge_unlabelled: FloatArray, confidence: float = 0.95
) -> tuple[float, float, float]:
    """The unclipped PPI estimate of the mean and its CLT interval, ``(estimate, low, high)``.

    ``human`` and ``judge_labelled`` are aligned (n >= 2), ``judge_unlabelled`` non-empty; no missing
    values. Equal to ppi-python's ``ppi_mean_pointestimate`` and ``ppi_mean_ci`` with ``lam=1`` and
    ``alpha = 1 - confidence``.
    """
    rectifier = human - judge_labelled
    estimate = float(judge_unlabelled.mean() + rectifier.mean())
    se = math.sqrt(
        float(judge_unlabelled.var()) / judge_unlabelled.size + float(rectifier.var()) / rectifier.size
    )
    half = float(ndtri(0.5 + confidence / 2.0)) * se
    return estimate, estimate - half, estimate + half


def _clip(value: float, scale: tuple[float, float]) -> float:
    return min(max(value, scale[0]), scale[1])


def _check(values: FloatArray, scale: tuple[float, float], what: str) -> None:
    low, high = scale
    if values.size and (float(values.min()) < low or float(values.max()) > high):
        raise StatsInputError(
            f"{what} must lie on the people's scale [{low:g}, {high:g}]: got values from "
            f"{float(values.min()):g} to {float(values.max()):g}; map the scores onto the scale first"
        )


def _plain_mean(values: FloatArray, scale: tuple[float, float], confidence: float) -> MeanEstimate | None:
    """The mean of ``values`` with ``summarize``'s interval, clipped to the scale."""
    if values.size == 0:
        return None
    summary = clip_to_range(summarize(values, confidence=confidence), scale)
    assert summary.mean is not None and summary.ci_method not in ("auto", "none")
    return MeanEstimate(
        value=summary.mean,
        ci_low=summary.ci_low,
        ci_high=summary.ci_high,
        n=summary.n,
        method=cast(MeanMethod, summary.ci_method),
    )


def _said(estimate: MeanEstimate) -> str:
    if estimate.ci_low is None or estimate.ci_high is None:
        return f"{estimate.value:.3f}"
    return f"{estimate.value:.3f} [{estimate.ci_low:.3f}, {estimate.ci_high:.3f}]"


def _reason(
    ppi: MeanEstimate | None,
    judge_only: MeanEstimate | None,
    labels_only: MeanEstimate | None,
    rectifier: float | None,
    n_unlabelled: int,
) -> str:
    labels = f"the labels alone give {_said(labels_only)}" if labels_only else "there are no labels"
    judge = f"the judge alone {_said(judge_only)}" if judge_only else "the judge scored no item"
    n = labels_only.n if labels_only else 0
    if ppi is None:
        need = (
            f"it needs at least two labelled items with a judge's score and there are {n}"
            if n < 2
            else "every judged item is labelled, so there is nothing for the judge to add"
        )
        return f"No prediction-powered estimate: {need}; {labels} and {judge}."
    assert rectifier is not None
    return (
        f"The people's mean is {_said(ppi)}: the judge's scores of {n_unlabelled} unlabelled items "
        f"corrected by {rectifier:+.3f} (people minus judge on {n} labelled items); {labels} and {judge}."
    )


def prediction_powered_mean(
    human: Values,
    judge_labelled: Values,
    judge_unlabelled: Values,
    *,
    scale: tuple[float, float],
    confidence: float = 0.95,
) -> PredictionPoweredMean:
    """The people's mean estimated by PPI, by the judge alone and by the labels alone (see the module
    docstring). ``human`` and ``judge_labelled`` are aligned per labelled item; ``judge_unlabelled`` has
    one judge score per unlabelled item of the population; all on the people's ``scale``."""
    if not 0.0 < confidence < 1.0:
        raise StatsInputError(f"confidence must be strictly between 0 and 1, got {confidence} (e.g. 0.95)")
    if not scale[0] < scale[1]:
        raise StatsInputError(f"the scale must be [low, high] with low < high, got {list(scale)}")
    paired = pair_values(human, judge_labelled)
    y, yhat = paired.baseline, paired.candidate
    unlabelled, _ = drop_missing(judge_unlabelled)
    _check(y, scale, "people's labels")
    _check(np.concatenate([yhat, unlabelled]), scale, "the judge's scores")
    judge_only = _plain_mean(np.concatenate([yhat, unlabelled]), scale, confidence)
    labels_only = _plain_mean(y, scale, confidence)
    rectifier = float((y - yhat).mean()) if y.size else None
    ppi = None
    if y.size >= 2 and unlabelled.size:
        estimate, low, high = ppi_mean_interval(y, yhat, unlabelled, confidence)
        ppi = MeanEstimate(
            value=_clip(estimate, scale),
            ci_low=_clip(low, scale),
            ci_high=_clip(high, scale),
            n=int(y.size + unlabelled.size),
            method="ppi_clt",
        )
    return PredictionPoweredMean(
        confidence=confidence,
        scale=scale,
        n_labelled=int(y.size),
        n_unlabelled=int(unlabelled.size),
        estimate=ppi,
        rectifier=rectifier,
        judge_only=judge_only,
        labels_only=labels_only,
        reason=_reason(ppi, judge_only, labels_only, rectifier, int(unlabelled.size)),
    )
