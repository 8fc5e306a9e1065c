from __future__ import annotations

import itertools

import numpy as np
import pytest

from shared.analysis.stats import EXACT_MAX_PAIRS, sign_flip_p_value
from shared.analysis.stats.sign_flip import flip_p_values, random_sign_bits

pytestmark = pytest.mark.unit


def brute_force(differences: np.ndarray) -> float:
    """Every sign pattern, counted by hand."""
    observed = abs(differences.mean())
    patterns = list(itertools.product((1.0, -1.0), repeat=differences.size))
    extreme = sum(abs((np.array(p) * differences).mean()) >= observed - 1e-12 for p in patterns)
    return extreme / len(patterns)


def test_three_equal_drops_are_not_significant() -> None:
    assert sign_flip_p_value(np.array([-0.2, -0.2, -0.2])) == pytest.approx(0.25)


@pytest.mark.parametrize("seed", range(5))
def test_matches_full_enumeration(seed: int) -> None:
    rng = np.random.default_rng(seed)
    differences = rng.normal(-0.1, 0.2, 10)
    assert sign_flip_p_value(differences) == pytest.approx(brute_force(differences))


def test_edges() -> None:
    assert sign_flip_p_value(np.array([0.3])) is None
    assert sign_flip_p_value(np.zeros(5)) == 1.0
    smallest = sign_flip_p_value(np.full(EXACT_MAX_PAIRS, -0.5))
    assert smallest == pytest.approx(2 / 2**EXACT_MAX_PAIRS)
    with pytest.raises(ValueError, match="at most 16"):
        sign_flip_p_value(np.ones(EXACT_MAX_PAIRS + 1))


def test_monte_carlo_agrees_with_the_exact_test_within_its_error() -> None:
    rng = np.random.default_rng(3)
    for _ in range(5):
        diffs = rng.normal(0.05, 0.2, 14)
        exact = sign_flip_p_value(diffs)
        sampled = flip_p_values(diffs, random_sign_bits(14, 10_000, seed=1))[0]
        assert exact is not None
        assert abs(sampled - exact) <= 4 * np.sqrt(exact * (1 - exact) / 10_000) + 1e-4
