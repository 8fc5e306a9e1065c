"""A judge's mean corrected by people's labels (prediction-powered inference): pure result models, so
that a calibration report loads and serialises without NumPy or SciPy. Computed by
``shared.analysis.stats.prediction_powered``; every number is on the people's scale and every interval stays
inside that scale's range.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

MeanMethod = Literal["ppi_clt", "wilson", "t", "bootstrap", "t_clipped"]


class MeanEstimate(BaseModel, frozen=True):
    """A mean on the people's scale with its interval (clipped to the scale's range)."""

    value: float = Field(description="The point estimate of the mean")
    ci_low: float | None = Field(description="Lower bound of the interval; None below two values")
    ci_high: float | None = Field(description="Upper bound of the interval; None below two values")
    n: int = Field(description="Values the estimate rests on")
    method: MeanMethod = Field(
        description="How the interval was computed: ppi_clt (estimate ± z·sqrt(var(judge, unlabelled)/N "
        "+ var(human - judge, labelled)/n), population variances as ppi-python takes them); wilson "
        "(score interval of a share of 0/1 values); bootstrap (percentile interval of resampled means, "
        "fixed seed); t (Student t); t_clipped (Student t clipped to the values' own range)"
    )


class PredictionPoweredMean(BaseModel, frozen=True):
    """The people's mean of a metric estimated three ways: the judge corrected by the labels (PPI),
    the judge alone, and the labels alone.

    PPI (Angelopoulos et al., Science 2023), with ppi-python's ``lam=1``: ``estimate`` =
    mean(judge over the N unlabelled items) + mean(human - judge over the n labelled items). It is
    unbiased for the people's mean over the population when the labelled items are a uniform random
    sample of it, whatever the judge's bias; the better the judge tracks the people, the narrower the
    interval. ``estimate`` is None (with ``reason``) below two labelled items or without an
    unlabelled one.
    """

    confidence: float = Field(description="Confidence level of every interval, e.g. 0.95")
    scale: tuple[float, float] = Field(
        description="The range of the people's scale (pass rate: [0, 1]; a 1-5 scale: [1, 5]); every "
        "interval is clipped to it"
    )
    n_labelled: int = Field(description="Items with a people's label and a judge's score")
    n_unlabelled: int = Field(description="Items of the population with a judge's score and no label")
    estimate: MeanEstimate | None = Field(
        description="The prediction-powered estimate of the people's mean; None when it cannot be made"
    )
    rectifier: float | None = Field(
        description="mean(human - judge) over the labelled items: the judge's bias on the people's scale "
        "(negative: the judge is too generous)"
    )
    judge_only: MeanEstimate | None = Field(
        description="The judge's mean over every judged item, labelled and unlabelled (biased if the "
        "judge is); None without any"
    )
    labels_only: MeanEstimate | None = Field(
        description="The people's mean over the labelled items alone (no judge); None without any"
    )
    reason: str = Field(description="One sentence saying what the numbers are, or why one is missing")
