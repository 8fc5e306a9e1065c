from __future__ import annotations

import numpy as np
import pytest

from shared.analysis.stats import EXACT_MAX_PAIRS, compare_paired

pytestmark = pytest.mark.unit


def test_binary_metric_uses_mcnemar() -> None:
    baseline = [1] * 20
    candidate = [1] * 12 + [0] * 8
    result = compare_paired(baseline, candidate, resamples=1000)
    assert result.test == "mcnemar_exact"
    assert result.mcnemar is not None and result.mcnemar.baseline_only == 8
    assert result.p_value == pytest.approx(2 / 256)  # 2 * 0.5**8
    assert result.delta == pytest.approx(-0.4)
    assert result.delta_pct == pytest.approx(-40.0)


def test_few_continuous_pairs_use_the_exact_sign_flip_test_on_complete_pairs_only() -> None:
    baseline = [0.9, 0.8, None, 0.7, 0.6]
    candidate = [0.5, 0.4, 0.3, None, 0.2]
    result = compare_paired(baseline, candidate, resamples=1000)
    assert result.test == "sign_flip_exact"
    assert (result.n_pairs, result.n_dropped) == (3, 2)
    assert (result.baseline.n, result.candidate.n) == (3, 3)  # summaries describe the same items
    assert result.baseline.mean == pytest.approx(0.7667, abs=1e-4)
    assert result.delta == pytest.approx(-0.4)
    # three drops of 0.4: 2 of the 8 sign patterns are as extreme; the bootstrap would say 1/1001
    assert result.p_value == pytest.approx(0.25)
    assert result.bootstrap.p_value == pytest.approx(1 / 1001)
    assert result.bootstrap.n_dropped == 2


def test_many_continuous_pairs_use_the_monte_carlo_sign_flip() -> None:
    rng = np.random.default_rng(1)
    baseline = rng.uniform(0.5, 1.0, EXACT_MAX_PAIRS + 1)
    candidate = baseline - rng.uniform(0.0, 0.2, baseline.size)
    result = compare_paired(baseline, candidate, resamples=1000)
    assert result.test == "sign_flip_monte_carlo"
    # every difference is negative: only the all-negative pattern is as extreme (of 10,000 drawn)
    assert result.p_value == pytest.approx(1 / 10_001, rel=0.5)
    # the interval of the delta is still the bootstrap's
    assert (result.delta_ci_low, result.delta_ci_high) == (result.bootstrap.ci_low, result.bootstrap.ci_high)


def test_untestable_and_zero_baseline() -> None:
    one = compare_paired([0.5], [0.7])
    assert one.test is None and one.p_value is None and one.delta == pytest.approx(0.2)
    zero = compare_paired([0.0, 0.0, 0.0], [0.1, 0.2, 0.3], resamples=500)
    assert zero.delta_pct is None and zero.delta == pytest.approx(0.2)


def test_synthetic_drop_is_detected() -> None:
    rng = np.random.default_rng(0)
    baseline = rng.uniform(0.85, 0.95, 50)
    candidate = baseline.copy()
    candidate[:15] = 0.0
    result = compare_paired(baseline, candidate)
    assert result.p_value is not None and result.p_value < 0.001
    assert result.delta_ci_high is not None and result.delta_ci_high < 0
    assert result.cohens_d is not None and result.cohens_d < -0.5
