"""``compare_paired_many`` (every metric of a group at once: shared resamples, matrix products) gives
what ``compare_paired`` gives one metric at a time, up to float rounding: same tests, same p-values,
same intervals - for binary and continuous metrics, missing values, few and many pairs, and past the
resample cap and the chunked index draws. Metrics with missing values and at least
``SHARED_MIN_PAIRS`` complete pairs share their group's resamples instead: within Monte Carlo error."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shared.analysis.stats import compare_paired, compare_paired_many, paired_bootstrap
from shared.analysis.stats.bootstrap import bootstrap_means, bootstrap_means_many
from shared.analysis.stats.paired_many import SHARED_MIN_PAIRS
from shared.analysis.stats.sign_flip import resamples_for
from yardstick.api.statistics import PairedComparison

pytestmark = pytest.mark.unit


def assert_same(new: Any, old: Any, path: str = "") -> None:
    if isinstance(old, dict):
        assert new.keys() == old.keys(), path
        for key in old:
            assert_same(new[key], old[key], f"{path}.{key}")
    elif isinstance(old, float) and isinstance(new, float):
        assert new == pytest.approx(old, rel=1e-9, abs=1e-12), path
    else:
        assert new == old, path


def assert_equal_lists(new: list[PairedComparison], old: list[PairedComparison]) -> None:
    assert len(new) == len(old)
    for a, b in zip(new, old, strict=True):
        assert_same(a.model_dump(), b.model_dump())


def metric_rows(rng: np.random.Generator, m: int, n: int, missing: float) -> tuple[Any, Any]:
    """m metrics on n pairs: binary, continuous, coarse (ties) and constant rows; NaN = missing."""
    base = np.empty((m, n))
    cand = np.empty((m, n))
    for i in range(m):
        kind = i % 4
        if kind == 0:
            base[i], cand[i] = rng.random(n) < 0.6, rng.random(n) < 0.55
        elif kind == 1:
            base[i], cand[i] = rng.normal(0.5, 0.2, n), rng.normal(0.48, 0.2, n)
        elif kind == 2:
            base[i], cand[i] = rng.integers(0, 5, n) / 4, rng.integers(0, 5, n) / 4
        else:
            base[i] = cand[i] = np.full(n, 0.3)
    for arr in (base, cand):
        arr[rng.random((m, n)) < missing] = np.nan
    return base, cand


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    m=st.integers(1, 6),
    n=st.integers(0, 60),
    missing=st.sampled_from([0.0, 0.05, 0.5]),
    resamples=st.sampled_from([100, 1_000]),
)
def test_many_equals_one_at_a_time(seed: int, m: int, n: int, missing: float, resamples: int) -> None:
    base, cand = metric_rows(np.random.default_rng(seed), m, n, missing)
    new = compare_paired_many(base, cand, resamples=resamples, seed=seed % 7)
    old = [compare_paired(base[i], cand[i], resamples=resamples, seed=seed % 7) for i in range(m)]
    assert_equal_lists(new, old)


@pytest.mark.parametrize("n", [1_500, 3_001])
def test_many_equals_one_at_a_time_past_the_resample_cap(n: int) -> None:
    base, cand = metric_rows(np.random.default_rng(n), 5, n, 0.0)
    new = compare_paired_many(base, cand, resamples=10_000, seed=3)
    old = [compare_paired(base[i], cand[i], resamples=10_000, seed=3) for i in range(5)]
    assert_equal_lists(new, old)
    assert {c.bootstrap.resamples for c in new if c.n_pairs > 1_000} == {2_000}


def assert_within_monte_carlo_error(new: PairedComparison, old: PairedComparison) -> None:
    """Everything but the resampled figures is equal; the interval's ends and the p-values (the
    reported test's and the bootstrap's) differ by less than 6 standard errors of their Monte Carlo
    estimates (independent resamples, so sqrt(2) x one estimate's)."""
    varying = {"delta_ci_low", "delta_ci_high", "p_value", "bootstrap"}
    assert_same(new.model_dump(exclude=varying), old.model_dump(exclude=varying))
    assert new.bootstrap.model_dump(exclude={"ci_low", "ci_high", "p_value"}) == old.bootstrap.model_dump(
        exclude={"ci_low", "ci_high", "p_value"}
    )
    resamples = new.bootstrap.resamples
    spread = (new.differences_sd or 0.0) / np.sqrt(new.n_pairs)  # the bootstrap mean's sd
    # a 2.5 % quantile of B draws: sd sqrt(q(1 - q)/B) / density (normal), in units of the spread
    quantile_se = np.sqrt(0.025 * 0.975 / resamples) / 0.0584 * spread
    for end in ("delta_ci_low", "delta_ci_high"):
        a, b = getattr(new, end), getattr(old, end)
        assert abs(a - b) <= 6 * np.sqrt(2) * quantile_se + 1e-12, (end, a, b, quantile_se)
    for a, b, count in (
        (new.p_value, old.p_value, resamples_for(new.n_pairs)),
        (new.bootstrap.p_value, old.bootstrap.p_value, resamples),
    ):
        if new.test == "sign_flip_monte_carlo" or count == resamples:
            assert a is not None and b is not None
            p = max(a, b)
            assert abs(a - b) <= 6 * np.sqrt(2 * p * (1 - p) / count) + 2 / count, (a, b)


@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    n=st.integers(SHARED_MIN_PAIRS + 20, 1_500),
    missing=st.sampled_from([0.02, 0.2, 0.5]),
    shift=st.sampled_from([0.0, 0.01, 0.05]),
)
def test_missing_values_share_resamples_within_monte_carlo_error(
    seed: int, n: int, missing: float, shift: float
) -> None:
    """Metrics missing different values share their group's resamples and sign patterns: their
    intervals and p-values agree with each metric's own bootstrap and sign flip (what
    ``compare_paired`` does) within Monte Carlo error."""
    rng = np.random.default_rng(seed)
    base, cand = metric_rows(rng, 4, n, missing)
    cand[1] += shift
    new = compare_paired_many(base, cand, resamples=2_000, seed=seed % 5)
    old = [compare_paired(base[i], cand[i], resamples=2_000, seed=seed % 5) for i in range(4)]
    for a, b in zip(new, old, strict=True):
        if a.n_pairs >= SHARED_MIN_PAIRS:
            assert_within_monte_carlo_error(a, b)
        else:
            assert_same(a.model_dump(), b.model_dump())


def test_a_metric_with_few_complete_pairs_keeps_its_own_resamples() -> None:
    """Below ``SHARED_MIN_PAIRS`` complete pairs a metric is resampled alone: exactly as before."""
    base, cand = metric_rows(np.random.default_rng(4), 3, 400, 0.0)
    base[1, SHARED_MIN_PAIRS - 10 :] = np.nan
    new = compare_paired_many(base, cand, resamples=1_000, seed=2)
    old = [compare_paired(base[i], cand[i], resamples=1_000, seed=2) for i in range(3)]
    assert new[1].n_pairs == SHARED_MIN_PAIRS - 10
    assert_equal_lists(new, old)


def test_shared_bootstrap_of_complete_rows_is_the_plain_one() -> None:
    """With every value present, the ratio of sums is the plain mean: the same resampled means."""
    values = np.random.default_rng(6).normal(size=(3, 700))
    plain = bootstrap_means_many(values, resamples=1_000, seed=4)
    masked = bootstrap_means_many(values, resamples=1_000, seed=4, present=np.ones_like(values, dtype=bool))
    np.testing.assert_array_equal(plain, masked)


def test_chunked_index_draws_give_the_same_means() -> None:
    """B x n beyond the 8M-element matrix: the indices are drawn in row chunks either way."""
    values = np.random.default_rng(5).normal(size=(2, 5_001))
    many = bootstrap_means_many(values, resamples=2_000, seed=1)
    for row in range(2):
        np.testing.assert_allclose(many[row], bootstrap_means(values[row], 2_000, 1), rtol=1e-12)


def test_identical_runs_keep_the_exact_tie() -> None:
    same = np.random.default_rng(0).normal(size=(3, 500))
    for c in compare_paired_many(same, same, resamples=500):
        assert c.p_value == 1.0 and c.delta == 0.0
    assert paired_bootstrap(same[0], same[0], resamples=500).p_value == 1.0
