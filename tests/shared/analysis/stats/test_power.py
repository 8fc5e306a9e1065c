"""The reported MDE is what it says: a true change of that size is detected 80 % ± 5 % of the time.

Simulated with the tests Yardstick runs (Monte Carlo sign flip with fixed patterns, exact McNemar),
vectorised: thousands of comparisons in about a second."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps  # type: ignore[import-untyped]
from scipy.optimize import brentq  # type: ignore[import-untyped]
from scipy.special import bdtr, bdtrc  # type: ignore[import-untyped]

from shared.analysis.stats import (
    StatsInputError,
    mcnemar_power,
    mde_continuous,
    mde_pass_fail,
    min_p_at_n,
    pairs_for_continuous,
    pairs_for_pass_fail,
    pairs_needed_for,
)
from shared.analysis.stats.power import _critical_counts, _rejection_tails
from shared.analysis.stats.sign_flip import flip_p_values, random_sign_bits

pytestmark = pytest.mark.unit

REPLICATES = 4000


@pytest.mark.parametrize(("n", "level"), [(40, 0.05), (100, 0.0125)])
def test_continuous_change_of_the_mde_is_detected_80_percent_of_the_time(n: int, level: float) -> None:
    sd = 0.2
    mde = mde_continuous(n, sd, level)
    assert mde is not None
    rng = np.random.default_rng(n)
    diffs = rng.normal(-mde, sd, size=(REPLICATES, n))  # a drop of exactly the MDE
    p = flip_p_values(diffs, random_sign_bits(n, 999, seed=11))
    detected = float(np.mean(p < level))
    assert 0.75 <= detected <= 0.85, f"power at the MDE {mde:.4f}: {detected:.3f} (n={n}, level={level})"


@pytest.mark.parametrize(("n", "churn", "level"), [(60, 0.1, 0.05), (200, 0.2, 0.0125), (30, 0.0, 0.05)])
def test_pass_fail_change_of_the_mde_is_detected_80_percent_of_the_time(
    n: int, churn: float, level: float
) -> None:
    mde = mde_pass_fail(n, churn, level)
    assert mde is not None
    rng = np.random.default_rng(n)
    u = rng.random((20_000, n))
    b = np.count_nonzero(u < churn / 2 + mde, axis=1)  # pass -> fail: churn/2 + the drop
    c = np.count_nonzero((u >= churn / 2 + mde) & (u < churn + mde), axis=1)  # fail -> pass
    k = b + c
    p = np.where(k == 0, 1.0, np.minimum(1.0, 2.0 * sps.binom.cdf(np.minimum(b, c), k, 0.5)))
    detected = float(np.mean(p < level))
    assert 0.75 <= detected <= 0.85, f"power at the MDE {mde:.4f}: {detected:.3f}"
    assert mcnemar_power(n, mde, churn, level) == pytest.approx(0.8, abs=1e-6)


def test_no_mde_where_no_outcome_can_be_significant() -> None:
    assert min_p_at_n("mcnemar_exact", 4) == pytest.approx(0.125)
    assert pairs_needed_for("mcnemar_exact", 0.05) == 6  # 2 x 0.5**6 = 0.031
    assert mde_pass_fail(4, 0.0, 0.05) is None
    assert mde_continuous(5, 0.2, 0.05) is None
    assert mde_continuous(6, 0.2, 0.05) is not None


def test_sample_size_inverts_the_mde() -> None:
    for n in (30, 120):
        assert pairs_for_continuous(mde_continuous(n, 0.3, 0.05) or 0.0, 0.3, 0.05) == pytest.approx(n, abs=1)
    n = pairs_for_pass_fail(0.1, 0.1, 0.05)
    assert mcnemar_power(n, 0.1, 0.1, 0.05) >= 0.8 > mcnemar_power(n - 1, 0.1, 0.1, 0.05)
    with pytest.raises(StatsInputError):
        pairs_for_pass_fail(0.0, 0.1, 0.05)


def _mcnemar_power_every_count(n: int, drop: float, churn: float, level: float) -> float:
    """The exact power summed over every discordant count 0..n (what ``mcnemar_power`` computed
    before it summed over the likely counts only)."""
    discordant = churn + abs(drop)
    k = np.arange(n + 1)
    crit = sps.binom.ppf(level / 2.0, k, 0.5) - 1.0
    crit = np.where(2.0 * sps.binom.cdf(crit, k, 0.5) < level, crit, crit - 1.0)
    q = (churn / 2.0 + abs(drop)) / discordant
    low = np.where(crit >= 0, sps.binom.cdf(crit, k, q), 0.0)
    high = np.where(crit >= 0, sps.binom.sf(k - crit - 1.0, k, q), 0.0)
    return float(np.sum(sps.binom.pmf(k, n, min(1.0, discordant)) * np.minimum(1.0, low + high)))


@pytest.mark.parametrize("n", [3, 17, 240, 2_000, 10_000])
@pytest.mark.parametrize("level", [0.05, 0.05 / 22])
def test_mcnemar_power_over_the_likely_counts_equals_the_full_sum(n: int, level: float) -> None:
    rng = np.random.default_rng(n)
    for _ in range(20):
        churn = float(rng.uniform(0.0, 0.6))
        drop = float(rng.uniform(0.0, 1.0 - churn))
        assert mcnemar_power(n, drop, churn, level) == pytest.approx(
            _mcnemar_power_every_count(n, drop, churn, level), abs=1e-10
        )


@pytest.mark.parametrize("n", [30, 2_000, 10_000])
def test_mde_pass_fail_is_the_root_of_the_full_power_curve(n: int) -> None:
    """The MDE found on the fast power curve: the full sum says 80 % power there, less just below."""
    churn, level = 0.2, 0.05 / 22
    mde = mde_pass_fail(n, churn, level)
    assert mde is not None
    assert _mcnemar_power_every_count(n, mde * (1 + 1e-9), churn, level) >= 0.8
    assert _mcnemar_power_every_count(n, mde * (1 - 1e-6), churn, level) < 0.8


def _mde_on_the_full_sum(n: int, churn: float, level: float) -> float:
    """The slow reference: Brent's method on ``_mcnemar_power_every_count`` over the whole range (what
    ``mde_pass_fail`` computed before it bracketed the root and summed the tails by recurrence)."""
    root: float = brentq(
        lambda d: _mcnemar_power_every_count(n, d, churn, level) - 0.8, 0.0, 1.0 - churn, xtol=1e-13
    )
    return root


@pytest.mark.parametrize("seed", range(6))
def test_mde_pass_fail_equals_the_slow_reference(seed: int) -> None:
    """Random pair counts, churns and Holm levels: the fast MDE is the slow one to 1e-8."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 6_000))
    churn, level = float(rng.uniform(0.0, 0.5)), 0.05 / float(rng.integers(1, 23))
    mde = mde_pass_fail(n, churn, level)
    if _mcnemar_power_every_count(n, 1.0 - churn, churn, level) < 0.8:
        assert mde is None
        return
    assert mde == pytest.approx(_mde_on_the_full_sum(n, churn, level), rel=1e-8)


@pytest.mark.parametrize("q", [0.5, 0.5004, 0.53, 0.8, 1.0])
def test_rejection_tails_by_recurrence_equal_the_incomplete_betas(q: float) -> None:
    k = np.arange(0, 3_000)
    crit = _critical_counts(0.05 / 7, k)
    jumpy = crit.copy()
    jumpy[2_000:] += 1.0  # a rise of two: the recurrence does not hold, every k is computed apart
    for c in (crit, jumpy):
        expected = np.where(
            c >= 0, bdtr(np.maximum(c, 0.0), k, q) + bdtrc(np.maximum(k - c - 1.0, 0.0), k, q), 0.0
        )
        np.testing.assert_allclose(_rejection_tails(k, c, q), expected, rtol=0.0, atol=1e-11)
