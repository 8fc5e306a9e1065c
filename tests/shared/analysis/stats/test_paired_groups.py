"""``compare_paired_groups`` (the whole run and its breakdown groups on one draw of resamples and sign
patterns) against the straightforward reference, ``compare_paired`` of each metric on each group's
items alone: the same summaries, tests and effect sizes; sign-flip p-values, bootstrap p-values and
interval ends within Monte Carlo error (``assert_within_monte_carlo_error``: 6 standard errors of a
Monte Carlo p-value, sqrt(p(1 - p)/B), and of a 2.5 % quantile of B resampled means,
sqrt(0.025·0.975/B)/φ(1.96) bootstrap sds, both x sqrt(2) for two independent estimates); the
whole run exactly what ``compare_paired_many`` gives; every interval inside the range of the group's
differences."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shared.analysis.stats import compare_paired, compare_paired_groups, compare_paired_many
from shared.analysis.stats.paired_many import SHARED_MIN_PAIRS
from tests.shared.analysis.stats.test_paired_many import (
    assert_equal_lists,
    assert_same,
    assert_within_monte_carlo_error,
    metric_rows,
)
from yardstick.api.statistics import PairedComparison

pytestmark = pytest.mark.unit


def _groups(rng: np.random.Generator, n: int, count: int) -> list[npt.NDArray[np.intp]]:
    """The whole run, then ``count`` groups of uneven sizes (some below ``SHARED_MIN_PAIRS``)."""
    shares = rng.dirichlet(np.full(count, 0.7))
    labels = rng.choice(count, size=n, p=shares)
    return [np.arange(n)] + [np.flatnonzero(labels == g) for g in range(count) if np.any(labels == g)]


def _inside_the_differences(
    comp: PairedComparison, base: npt.NDArray[np.float64], cand: npt.NDArray[np.float64]
) -> None:
    if comp.delta_ci_low is None or comp.delta_ci_high is None:
        return
    complete = np.isfinite(base) & np.isfinite(cand)
    differences = cand[complete] - base[complete]
    tol = 1e-12 * max(1.0, float(np.abs(differences).max()))
    assert differences.min() - tol <= comp.delta_ci_low <= comp.delta_ci_high <= differences.max() + tol


@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    n=st.integers(150, 2_500),
    groups=st.integers(2, 6),
    missing=st.sampled_from([0.0, 0.03, 0.3]),
    shift=st.sampled_from([0.0, 0.02, 0.1]),
)
def test_groups_agree_with_each_group_alone_within_monte_carlo_error(
    seed: int, n: int, groups: int, missing: float, shift: float
) -> None:
    rng = np.random.default_rng(seed)
    base, cand = metric_rows(rng, 4, n, missing)
    cand[1] += shift
    parts = _groups(rng, n, groups)
    resamples = 1_000
    new = compare_paired_groups(base, cand, parts, resamples=resamples, seed=seed % 3)
    assert_equal_lists(new[0], compare_paired_many(base, cand, resamples=resamples, seed=seed % 3))
    for members, results in zip(parts[1:], new[1:], strict=True):
        for i, comp in enumerate(results):
            old = compare_paired(base[i, members], cand[i, members], resamples=resamples, seed=seed % 3)
            if comp.n_pairs >= SHARED_MIN_PAIRS:
                assert_within_monte_carlo_error(comp, old)
            else:  # resampled on its own complete pairs, as compare_paired does
                assert_same(comp.model_dump(), old.model_dump())
            _inside_the_differences(comp, base[i, members], cand[i, members])


def test_a_group_sees_its_shift_and_the_others_do_not() -> None:
    """A shift of one group's items only: that group's interval excludes 0 and holds the shift,
    the untouched group's interval holds 0 (pooled resamples do not leak one group into another)."""
    rng = np.random.default_rng(5)
    n = 3_000
    base = rng.normal(0.5, 0.1, (1, n))
    cand = base + rng.normal(0.0, 0.05, (1, n))
    shifted, untouched = np.arange(0, 400), np.arange(400, n)
    cand[0, shifted] += 0.05
    whole, moved, still = compare_paired_groups(base, cand, [np.arange(n), shifted, untouched], seed=1)
    assert moved[0].delta_ci_low is not None and moved[0].delta_ci_high is not None
    assert 0.0 < moved[0].delta_ci_low < 0.05 < moved[0].delta_ci_high
    assert still[0].delta_ci_low is not None and still[0].delta_ci_high is not None
    assert still[0].delta_ci_low < 0.0 < still[0].delta_ci_high
    assert moved[0].p_value is not None and moved[0].p_value < 0.001
    assert whole[0].n_pairs == n


def test_same_seed_same_results() -> None:
    rng = np.random.default_rng(9)
    base, cand = metric_rows(rng, 4, 1_200, 0.05)
    parts = _groups(rng, 1_200, 4)
    first = compare_paired_groups(base, cand, parts, resamples=500, seed=2)
    again = compare_paired_groups(base, cand, parts, resamples=500, seed=2)
    for a, b in zip(first, again, strict=True):
        assert [c.model_dump() for c in a] == [c.model_dump() for c in b]
