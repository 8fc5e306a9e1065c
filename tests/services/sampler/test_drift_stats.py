from __future__ import annotations

import pytest
from scipy import stats as sps

from services.sampler.drift_stats import welch_less_p, welch_less_p_samples

pytestmark = pytest.mark.unit


def test_matches_scipy_welch_one_sided() -> None:
    recent = [0.2, 0.5, 0.4, 0.1, 0.3, 0.6, 0.2]
    previous = [0.9, 0.8, 1.0, 0.7, 0.95, 0.85]
    expected = sps.ttest_ind(recent, previous, equal_var=False, alternative="less").pvalue
    assert welch_less_p_samples(recent, previous) == pytest.approx(expected)


def test_a_rise_is_not_a_drop() -> None:
    assert welch_less_p_samples([0.9, 1.0, 0.95, 0.9, 1.0], [0.2, 0.3, 0.1, 0.2, 0.4]) > 0.99


def test_constant_samples() -> None:
    assert welch_less_p([0.0] * 10, 1.0, 0.0, 40) == 0.0
    assert welch_less_p([1.0] * 10, 1.0, 0.0, 40) == 1.0
    assert welch_less_p([1.0] * 10, 1.0, None, None) == 1.0


def test_fixed_reference_uses_one_sample_t() -> None:
    recent = [0.5, 0.7, 0.6, 0.4, 0.8]
    expected = sps.ttest_1samp(recent, 0.9, alternative="less").pvalue
    assert welch_less_p(recent, 0.9, None, None) == pytest.approx(expected)
