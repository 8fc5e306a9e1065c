"""``compare_paired_many`` (every metric of a group at once: shared resamples, matrix products) gives
what ``compare_paired`` gives one metric at a time, up to float rounding: same tests, same p-values,
same intervals - for binary and continuous metrics, missing values, few and many pairs, and past the
resample cap and the chunked index draws."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shared.stats import PairedComparison, compare_paired, compare_paired_many, paired_bootstrap
from shared.stats.bootstrap import bootstrap_means, bootstrap_means_many

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
    base, cand = metric_rows(np.random.default_rng(n), 5, n, 0.01)
    new = compare_paired_many(base, cand, resamples=10_000, seed=3)
    old = [compare_paired(base[i], cand[i], resamples=10_000, seed=3) for i in range(5)]
    assert_equal_lists(new, old)
    assert {c.bootstrap.resamples for c in new if c.n_pairs > 1_000} == {2_000}


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
