from __future__ import annotations

import numpy as np
import pytest

from shared.analysis.stats import cohens_d, cohens_dz

pytestmark = pytest.mark.unit


def test_cohens_d_uses_sample_sds() -> None:
    # Both sample SDs are 1 (population SDs would be 0.816 and give d = 1.22, the seed's value).
    assert cohens_d(np.array([1.0, 2.0, 3.0]), np.array([2.0, 3.0, 4.0])) == pytest.approx(1.0)


def test_cohens_d_pools_unequal_variances_with_equal_weights() -> None:
    b = np.array([0.0, 2.0])  # var 2
    c = np.array([1.0, 7.0])  # var 18
    assert cohens_d(b, c) == pytest.approx((4.0 - 1.0) / np.sqrt(10.0))


def test_cohens_dz_known_answer_and_sign() -> None:
    assert cohens_dz(np.array([1.0, 2.0, 3.0])) == pytest.approx(2.0)
    assert cohens_dz(np.array([-1.0, -2.0, -3.0])) == pytest.approx(-2.0)


def test_undefined_effect_sizes_are_none() -> None:
    assert cohens_dz(np.array([0.5])) is None
    assert cohens_dz(np.array([0.1, 0.1, 0.1])) is None  # constant non-zero shift: infinite
    assert cohens_dz(np.array([0.0, 0.0])) == 0.0
    assert cohens_d(np.array([1.0]), np.array([1.0, 2.0])) is None
    assert cohens_d(np.array([1.0, 1.0]), np.array([2.0, 2.0])) is None
    assert cohens_d(np.array([1.0, 1.0]), np.array([1.0, 1.0])) == 0.0
