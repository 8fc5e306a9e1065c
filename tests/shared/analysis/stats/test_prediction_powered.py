"""Prediction-powered means: equal to ppi-python 0.2.3 (``lam=1``) on the same data, clipped to the
scale, guarded below two labels or without unlabelled items, and covering the people's mean when the
judge is biased (where the judge alone does not)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable

import numpy as np
import pytest

from shared.analysis.stats import (
    StatsInputError,
    ppi_mean_interval,
    prediction_powered_mean,
    summarize,
    wilson_interval,
)

with warnings.catch_warnings():  # ppi_py silences every warning of the process when imported
    import ppi_py  # type: ignore[import-untyped]

pytestmark = pytest.mark.unit


Maker = Callable[[np.random.Generator, int, int], tuple[np.ndarray, np.ndarray, np.ndarray]]


def _binary(rng: np.random.Generator, n: int, big: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    human = (rng.random(n) < 0.6).astype(float)
    judge = np.where(rng.random(n) < 0.85, human, 1.0 - human)
    return human, judge, (rng.random(big) < 0.7).astype(float)


def _continuous(rng: np.random.Generator, n: int, big: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    quality = rng.beta(4, 2, n + big)
    human = np.clip(quality[:n] + rng.normal(0, 0.1, n), 0, 1)
    judge = np.clip(quality + 0.08 + rng.normal(0, 0.05, n + big), 0, 1)
    return human, judge[:n], judge[n:]


def _scale(rng: np.random.Generator, n: int, big: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    human = rng.integers(1, 6, n).astype(float)  # a 1-5 scale
    judge = np.clip(human + rng.normal(0.4, 0.6, n), 1, 5)
    return human, judge, np.clip(rng.normal(3.4, 1.0, big), 1, 5)


@pytest.mark.parametrize(
    ("make", "n", "big", "confidence"),
    [
        (_binary, 50, 1000, 0.95),
        (_binary, 7, 40, 0.9),
        (_continuous, 100, 900, 0.95),
        (_continuous, 3, 5, 0.8),
        (_scale, 200, 2000, 0.99),
    ],
)
def test_equals_ppi_python_with_lam_1(make: Maker, n: int, big: int, confidence: float) -> None:
    for seed in range(4):
        human, judge, unlabelled = make(np.random.default_rng(seed), n, big)
        estimate, low, high = ppi_mean_interval(human, judge, unlabelled, confidence)
        reference = ppi_py.ppi_mean_pointestimate(human, judge, unlabelled, lam=1)
        ref_low, ref_high = ppi_py.ppi_mean_ci(human, judge, unlabelled, alpha=1 - confidence, lam=1)
        assert estimate == pytest.approx(float(reference[0]), abs=1e-9)
        assert (low, high) == pytest.approx((float(ref_low[0]), float(ref_high[0])), abs=1e-9)
        scale = (1.0, 5.0) if make is _scale else (0.0, 1.0)
        result = prediction_powered_mean(human, judge, unlabelled, scale=scale, confidence=confidence)
        assert result.estimate is not None and (result.n_labelled, result.n_unlabelled) == (n, big)
        clipped = [min(max(x, scale[0]), scale[1]) for x in (estimate, low, high)]
        assert [result.estimate.value, result.estimate.ci_low, result.estimate.ci_high] == pytest.approx(
            clipped, abs=1e-12
        )
        assert result.rectifier == pytest.approx(float(np.mean(human - judge)), abs=1e-12)


def test_judge_only_and_labels_only_are_the_plain_means_of_their_items() -> None:
    human, judge, unlabelled = _binary(np.random.default_rng(3), 60, 500)
    result = prediction_powered_mean(human, judge, unlabelled, scale=(0.0, 1.0))
    assert result.labels_only is not None and result.labels_only.method == "wilson"
    assert (result.labels_only.ci_low, result.labels_only.ci_high) == wilson_interval(human)
    assert result.labels_only.value == pytest.approx(human.mean())
    everything = np.concatenate([judge, unlabelled])
    assert result.judge_only is not None and result.judge_only.n == 560
    assert result.judge_only.value == pytest.approx(everything.mean())
    assert (result.judge_only.ci_low, result.judge_only.ci_high) == wilson_interval(everything)
    human, judge, unlabelled = _scale(np.random.default_rng(3), 30, 100)
    result = prediction_powered_mean(human, judge, unlabelled, scale=(1.0, 5.0))
    assert result.labels_only is not None and result.labels_only.method == "t"
    t = summarize(human, ci_method="t")
    assert (result.labels_only.ci_low, result.labels_only.ci_high) == (t.ci_low, t.ci_high)


def test_intervals_never_leave_the_scale() -> None:
    # a judge that passes nearly everything, people who pass everything it sees: the CLT interval
    # of the estimate reaches past 1 and is clipped there
    human = np.array([1.0, 1.0, 1.0, 1.0, 1.0, 1.0])
    judge = np.array([1.0, 1.0, 1.0, 1.0, 1.0, 0.0])
    unlabelled = np.array([1.0] * 30 + [0.0])
    estimate, _, high = ppi_mean_interval(human, judge, unlabelled)
    assert estimate > 1.0 and high > 1.0
    result = prediction_powered_mean(human, judge, unlabelled, scale=(0.0, 1.0))
    assert result.estimate is not None
    assert result.estimate.value == 1.0 and result.estimate.ci_high == 1.0 and result.estimate.ci_low < 1.0


def test_no_estimate_below_two_labels_or_without_unlabelled_items() -> None:
    one = prediction_powered_mean([1.0, None], [0.0, 1.0], [1.0, 0.0, 1.0], scale=(0.0, 1.0))
    assert one.estimate is None and one.n_labelled == 1 and one.rectifier == 1.0
    assert "at least two labelled items" in one.reason and "there are 1" in one.reason
    assert one.judge_only is not None and one.judge_only.n == 4
    everything = prediction_powered_mean([1.0, 0.0, 1.0], [1.0, 1.0, 1.0], [], scale=(0.0, 1.0))
    assert everything.estimate is None and everything.n_unlabelled == 0
    assert "every judged item is labelled" in everything.reason
    assert everything.labels_only is not None and everything.labels_only.value == pytest.approx(2 / 3)
    nothing = prediction_powered_mean([], [], [], scale=(0.0, 1.0))
    assert nothing.judge_only is None and nothing.labels_only is None
    assert "there are no labels" in nothing.reason and "the judge scored no item" in nothing.reason


def test_missing_values_are_left_out_and_the_reason_gives_the_numbers() -> None:
    result = prediction_powered_mean(
        [1.0, 0.0, None, 1.0, 1.0], [1.0, 1.0, 1.0, float("nan"), 0.0], [1.0, None, 0.0], scale=(0.0, 1.0)
    )
    assert (result.n_labelled, result.n_unlabelled) == (3, 2)
    assert result.estimate is not None
    assert result.estimate.value == pytest.approx(0.5 + (0.0 - 1.0 + 1.0) / 3)
    assert result.reason.startswith(f"The people's mean is {result.estimate.value:.3f} [")
    assert "2 unlabelled items corrected by +0.000 (people minus judge on 3 labelled items)" in result.reason


def test_values_off_the_scale_or_a_bad_confidence_are_refused() -> None:
    with pytest.raises(StatsInputError, match=r"judge's scores must lie on the people's scale \[1, 5\]"):
        prediction_powered_mean([1, 2], [1, 2], [0.2], scale=(1.0, 5.0))
    with pytest.raises(StatsInputError, match="people's labels must lie"):
        prediction_powered_mean([1, 7], [1, 2], [3], scale=(1.0, 5.0))
    with pytest.raises(StatsInputError, match="confidence"):
        prediction_powered_mean([1, 0], [1, 0], [1], scale=(0.0, 1.0), confidence=95)
    with pytest.raises(StatsInputError, match="low < high"):
        prediction_powered_mean([1, 0], [1, 0], [1], scale=(1.0, 1.0))


def test_covers_the_peoples_mean_when_the_judge_is_biased_and_the_judge_alone_does_not() -> None:
    """1,500 simulated runs: 1,000 items, 100 labelled; people pass 60 %, the judge passes 95 % of what
    they pass and 35 % of what they fail (a pass rate of 71 %)."""
    runs, items, labelled, truth = 1500, 1000, 100, 0.6
    rng = np.random.default_rng(20261128)
    ppi_hits = judge_hits = 0
    for _ in range(runs):
        human = rng.random(items) < truth
        judge = np.where(human, rng.random(items) < 0.95, rng.random(items) < 0.35).astype(float)
        chosen = np.zeros(items, dtype=bool)
        chosen[rng.choice(items, labelled, replace=False)] = True
        result = prediction_powered_mean(
            human[chosen].astype(float), judge[chosen], judge[~chosen], scale=(0.0, 1.0)
        )
        assert result.estimate is not None and result.judge_only is not None
        ppi_hits += result.estimate.ci_low <= truth <= result.estimate.ci_high  # type: ignore[operator]
        judge_hits += result.judge_only.ci_low <= truth <= result.judge_only.ci_high  # type: ignore[operator]
    error = math.sqrt(0.95 * 0.05 / runs)
    assert ppi_hits / runs >= 0.95 - 3 * error
    assert judge_hits / runs < 0.05
