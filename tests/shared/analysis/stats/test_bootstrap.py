from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shared.analysis.stats import StatsInputError, bootstrap_means, paired_bootstrap
from shared.analysis.stats import bootstrap as bootstrap_module

pytestmark = pytest.mark.unit


def _reference_p_value(diffs: list[float], resamples: int, seed: int) -> float:
    """Loop re-implementation of the documented definition, on the same random indices."""
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(diffs), size=(resamples, len(diffs)), dtype=np.int32)
    observed = sum(diffs) / len(diffs)
    k = 0
    for row in idx:
        m = sum(diffs[i] for i in row) / len(diffs)
        if abs(m - observed) >= abs(observed) - 1e-12:
            k += 1
    return (k + 1) / (resamples + 1)


def test_p_value_matches_the_documented_definition() -> None:
    baseline = [0.9, 0.8, 0.7, 0.95, 0.6, 0.85]
    candidate = [0.7, 0.85, 0.5, 0.9, 0.4, 0.8]
    diffs = [c - b for b, c in zip(baseline, candidate, strict=True)]
    result = paired_bootstrap(baseline, candidate, resamples=2000, seed=11)
    assert result.p_value == pytest.approx(_reference_p_value(diffs, 2000, 11), abs=1e-12)
    assert result.mean_difference == pytest.approx(sum(diffs) / 6)


def test_p_value_converges_to_exact_enumeration() -> None:
    # diffs 1, 2, 6: mean 3; of the 27 equally likely resamples only (6, 6, 6) has |m - 3| >= 3.
    diffs = [1.0, 2.0, 6.0]
    means = [sum(c) / 3 for c in itertools.product(diffs, repeat=3)]
    exact_p = sum(abs(m - 3.0) >= 3.0 for m in means) / 27
    assert exact_p == pytest.approx(1 / 27)
    result = paired_bootstrap([0.0, 0.0, 0.0], diffs, resamples=10_000, seed=0)
    assert result.p_value == pytest.approx(exact_p, abs=0.006)  # ≈ 3 binomial standard errors
    # Percentile CI against the exact (discrete) bootstrap distribution's 2.5% / 97.5% quantiles.
    assert result.ci_low == pytest.approx(np.quantile(means, 0.025, method="inverted_cdf"))
    assert result.ci_high == pytest.approx(np.quantile(means, 0.975, method="inverted_cdf"))


def test_same_seed_same_result_and_seed_matters() -> None:
    rng = np.random.default_rng(2)
    b = rng.uniform(0, 1, 30)
    c = b + rng.normal(0.05, 0.2, 30)
    first = paired_bootstrap(b, c, seed=7)
    assert paired_bootstrap(b, c, seed=7) == first
    assert paired_bootstrap(b, c, seed=8).p_value != first.p_value


def test_identical_samples_give_p_one_and_zero_interval() -> None:
    values = [0.2, 0.5, 0.9, 0.4]
    result = paired_bootstrap(values, values)
    assert result.p_value == 1.0
    assert (result.ci_low, result.ci_high, result.mean_difference) == (0.0, 0.0, 0.0)


def test_constant_nonzero_shift_is_maximally_significant() -> None:
    result = paired_bootstrap([0.5] * 20, [0.6] * 20, resamples=999)
    assert result.p_value == pytest.approx(1 / 1000)


def test_edge_cases_n0_n1_and_missing_pairs() -> None:
    none = paired_bootstrap([None, 1.0], [0.5, None])
    assert (none.n_pairs, none.n_dropped, none.p_value, none.mean_difference) == (0, 2, None, None)
    one = paired_bootstrap([0.2, None], [0.9, 0.1])
    assert (one.n_pairs, one.n_dropped, one.p_value) == (1, 1, None)
    assert one.mean_difference == pytest.approx(0.7)


def test_unequal_lengths_are_rejected() -> None:
    with pytest.raises(StatsInputError, match="equal length"):
        paired_bootstrap([1.0, 2.0], [1.0])
    with pytest.raises(StatsInputError, match="resamples"):
        paired_bootstrap([1.0, 2.0], [1.0, 2.0], resamples=0)


def test_chunked_resampling_equals_one_matrix(monkeypatch: pytest.MonkeyPatch) -> None:
    values = np.random.default_rng(0).normal(size=37)
    whole = bootstrap_means(values, 500, seed=4)
    monkeypatch.setattr(bootstrap_module, "_MAX_MATRIX_ELEMENTS", 37 * 7)
    chunked = bootstrap_means(values, 500, seed=4)
    np.testing.assert_array_equal(whole, chunked)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.floats(0, 1), st.floats(0, 1)),
        min_size=2,
        max_size=30,
    ),
    st.integers(0, 2**32 - 1),
)
def test_swapping_sides_negates_delta_and_keeps_p(pairs: list[tuple[float, float]], seed: int) -> None:
    b = [p[0] for p in pairs]
    c = [p[1] for p in pairs]
    forward = paired_bootstrap(b, c, resamples=300, seed=seed)
    backward = paired_bootstrap(c, b, resamples=300, seed=seed)
    assert forward.p_value is not None and 0 < forward.p_value <= 1
    assert backward.p_value == pytest.approx(forward.p_value)
    assert backward.mean_difference == pytest.approx(-forward.mean_difference)  # type: ignore[operator]
    assert forward.ci_low is not None and forward.ci_high is not None
    assert forward.ci_low <= forward.ci_high


def test_large_samples_draw_fewer_resamples_and_say_so() -> None:
    rng = np.random.default_rng(5)
    base = rng.uniform(0, 1, 1_500)
    result = paired_bootstrap(base, base - 0.01 + rng.normal(0, 0.05, base.size), resamples=10_000)
    assert result.resamples == 2_000  # recorded as drawn
    assert result.ci_low is not None and result.ci_high is not None and result.mean_difference is not None
    assert result.ci_low < result.mean_difference < result.ci_high
    small = paired_bootstrap(base[:100], base[:100] + 0.01, resamples=10_000)
    assert small.resamples == 10_000
