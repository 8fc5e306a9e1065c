"""Agreement statistics as functions of contingency tables, vectorised over leading axes.

Every statistic here (observed agreement, Cohen's κ plain or weighted, Spearman's rho with mid-ranks)
depends on the items only through the k x k table of (reference, judge) counts, so a stack of
tables of shape ``(..., k, k)`` gives a stack of statistics in one pass: the observed table, its
k² leave-one-out tables (items in one cell are interchangeable), or a thousand simulated studies.

Intervals, chosen by simulation (figures in ``tests/shared/analysis/stats/test_agreement.py``):
- κ: Fisher z with the jackknife standard error, an adjusted Wald interval where that is degenerate;
- Spearman's rho: Fisher z with the jackknife standard error, Bonett-Wright where that is undefined.

Undefined values (κ when the expected agreement is 1, rho when a rater is constant) come back as NaN
from these kernels; the public functions in ``shared.analysis.stats.agreement`` turn them into ``None``
with a reason.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import numpy as np
import numpy.typing as npt
from scipy.special import ndtri  # type: ignore[import-untyped]

from shared.analysis.stats.cleaning import FloatArray

IntArray = npt.NDArray[np.int64]
KappaWeights = Literal["none", "linear", "quadratic"]
_EPS = 1e-12


def agreement_weights(k: int, weights: KappaWeights) -> FloatArray:
    """Agreement weights w_ij in [0, 1] (1 on the diagonal) for k ordered categories.

    ``linear``: 1 - |i - j| / (k - 1); ``quadratic``: 1 - (i - j)² / (k - 1)²; ``none``: identity.
    Positions, not values, as scikit-learn's ``cohen_kappa_score`` does: κ is
    1 - Σ d·O / Σ d·E with disagreement weights d = 1 - w, the same number either way.
    """
    if weights == "none":
        return np.eye(k)
    power = 1 if weights == "linear" else 2
    pos = np.arange(k, dtype=np.float64)
    distance = np.abs(pos[:, None] - pos[None, :]) ** power
    scaled: FloatArray = 1.0 - distance / float((k - 1) ** power)
    return scaled


def contingency(reference: IntArray, judge: IntArray, k: int) -> IntArray:
    """The k x k table of counts: rows are the reference's category index, columns the judge's."""
    table: IntArray = np.bincount(reference * k + judge, minlength=k * k).reshape(k, k).astype(np.int64)
    return table


def kappa_parts(tables: npt.NDArray[np.floating | np.integer], w: FloatArray) -> tuple[FloatArray, ...]:
    """(κ, p_o, p_e, n) of each table; κ is NaN where p_e = 1 (or the table is empty)."""
    t = np.asarray(tables, dtype=np.float64)
    n = t.sum(axis=(-2, -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        p = t / n[..., None, None]
        rows, cols = p.sum(axis=-1), p.sum(axis=-2)
        p_o = (p * w).sum(axis=(-2, -1))
        p_e = np.einsum("...i,ij,...j->...", rows, w, cols)
        undefined = ~(1.0 - p_e > _EPS)
        kappa = np.where(undefined, np.nan, (p_o - p_e) / np.where(undefined, 1.0, 1.0 - p_e))
    return np.clip(kappa, -1.0, 1.0), p_o, p_e, n


def kappa_standard_error(tables: npt.NDArray[np.floating | np.integer], w: FloatArray) -> FloatArray:
    """Large-sample (non-null) standard error of κ or weighted κ, Fleiss, Cohen & Everitt (1969):

    var = [Σ p_ij (w_ij - (w̄_i. + w̄_.j)(1 - κ))² - (κ - p_e (1 - κ))²] / (n (1 - p_e)²),
    with w̄_i. = Σ_j w_ij p_.j and w̄_.j = Σ_i w_ij p_i. . NaN where κ is undefined.
    """
    t = np.asarray(tables, dtype=np.float64)
    kappa, _, p_e, n = kappa_parts(t, w)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = t / n[..., None, None]
        rows, cols = p.sum(axis=-1), p.sum(axis=-2)
        w_row = np.einsum("ij,...j->...i", w, cols)  # w̄_i.
        w_col = np.einsum("ij,...i->...j", w, rows)  # w̄_.j
        one_minus = (1.0 - kappa)[..., None, None]
        spread = (p * (w - (w_row[..., :, None] + w_col[..., None, :]) * one_minus) ** 2).sum(axis=(-2, -1))
        var = (spread - (kappa - p_e * (1.0 - kappa)) ** 2) / (n * (1.0 - p_e) ** 2)
    se: FloatArray = np.sqrt(np.maximum(var, 0.0))
    return se


def spearman_from_tables(tables: npt.NDArray[np.floating | np.integer]) -> FloatArray:
    """Spearman's rho of the (row category, column category) pairs of each table, with mid-ranks for
    ties (what ``scipy.stats.spearmanr`` computes on the items); NaN where a rater is constant."""
    t = np.asarray(tables, dtype=np.float64)
    n = t.sum(axis=(-2, -1))
    rows, cols = t.sum(axis=-1), t.sum(axis=-2)
    centre = ((n + 1.0) / 2.0)[..., None]
    a = np.cumsum(rows, axis=-1) - rows + (rows + 1.0) / 2.0 - centre  # centred mid-rank of row i
    b = np.cumsum(cols, axis=-1) - cols + (cols + 1.0) / 2.0 - centre
    cov = np.einsum("...i,...ij,...j->...", a, t, b)
    var_a = (rows * a**2).sum(axis=-1)
    var_b = (cols * b**2).sum(axis=-1)
    denom = np.sqrt(var_a * var_b)
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = np.where(denom > 0.0, cov / np.where(denom > 0.0, denom, 1.0), np.nan)
    out: FloatArray = np.clip(rho, -1.0, 1.0)
    return out


def fisher_z_interval(
    rho: FloatArray, n: FloatArray | float, confidence: float
) -> tuple[FloatArray, FloatArray]:
    """Fisher-z interval of Spearman's rho with the Bonett & Wright (2000) standard error
    sqrt((1 + rho²/2) / (n - 3)); NaN below four items or at |rho| = 1.

    It assumes untied ranks: on a 1-5 scale with skewed use its coverage fell to 0.84 at n = 200
    (simulated), so ``spearman_interval`` uses it only where the jackknife cannot be computed."""
    z_crit = float(ndtri(0.5 + confidence / 2.0))
    n_arr = np.asarray(n, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.sqrt((1.0 + rho**2 / 2.0) / (n_arr - 3.0))
        z = np.arctanh(rho)
        ok = (n_arr > 3) & (np.abs(rho) < 1.0)
        low = np.where(ok, np.tanh(z - z_crit * se), np.nan)
        high = np.where(ok, np.tanh(z + z_crit * se), np.nan)
    return low, high


def jackknife_z_se(
    tables: npt.NDArray[np.floating | np.integer], statistic: Callable[[FloatArray], FloatArray]
) -> FloatArray:
    """Delete-one-item jackknife standard error of z = atanh(statistic) for each (..., k, k) table.

    Items in the same cell give the same leave-one-out table, so the k² of them are enough:
    var = (n - 1)/n · Σ_c t_c (z_(c) - z̄)², z̄ = Σ_c t_c z_(c) / n. NaN (or inf) when a leave-one-out
    statistic is undefined (one item carries all of a rater's variation) or is ±1.
    """
    t = np.asarray(tables, dtype=np.float64)
    k = t.shape[-1]
    n = t.sum(axis=(-2, -1))
    cells = t.reshape(*t.shape[:-2], k * k)
    loo = t[..., None, :, :] - np.eye(k * k).reshape(k * k, k, k)
    with np.errstate(invalid="ignore", divide="ignore"):
        z_loo = np.arctanh(statistic(np.maximum(loo, 0.0)))
        z_loo = np.where(cells > 0, z_loo, 0.0)  # empty cells have no item to leave out
        z_bar = (cells * z_loo).sum(axis=-1) / n
        var = (n - 1.0) / n * (cells * (z_loo - z_bar[..., None]) ** 2).sum(axis=-1)
    se: FloatArray = np.sqrt(var)
    return se


def _fisher_z(
    estimate: FloatArray, se: FloatArray, confidence: float
) -> tuple[FloatArray, FloatArray, npt.NDArray[np.bool_]]:
    """tanh(atanh(estimate) ± z·se) and where it is usable (finite, positive se, |estimate| < 1)."""
    z_crit = float(ndtri(0.5 + confidence / 2.0))
    with np.errstate(invalid="ignore", divide="ignore"):
        z = np.arctanh(estimate)
        ok = np.isfinite(se) & (se > 0.0) & np.isfinite(z)
        half = z_crit * np.where(ok, se, 0.0)
        low, high = np.tanh(np.where(ok, z, 0.0) - half), np.tanh(np.where(ok, z, 0.0) + half)
    return low, high, ok


def spearman_interval(
    tables: npt.NDArray[np.floating | np.integer], confidence: float
) -> tuple[FloatArray, FloatArray, npt.NDArray[np.bool_]]:
    """Interval of Spearman's rho for each table: tanh(atanh(rho) ± z·SE) with the jackknife SE of
    ``jackknife_z_se``; where that is undefined, the Bonett-Wright interval (the third array says
    which tables used the jackknife). NaN where neither can be computed."""
    t = np.asarray(tables, dtype=np.float64)
    rho = spearman_from_tables(t)
    n = t.sum(axis=(-2, -1))
    low, high, jack = _fisher_z(rho, jackknife_z_se(t, spearman_from_tables), confidence)
    jack &= n > 3
    bw_low, bw_high = fisher_z_interval(rho, n, confidence)
    return np.where(jack, low, bw_low), np.where(jack, high, bw_high), jack


def kappa_interval(
    tables: npt.NDArray[np.floating | np.integer], w: FloatArray, confidence: float
) -> tuple[FloatArray, FloatArray, npt.NDArray[np.bool_]]:
    """Interval of κ (plain or weighted) for each table; NaN where κ is undefined. The third array
    says which tables used the first method:

    1. tanh(atanh(κ) ± z·SE), SE the delete-one-item jackknife of atanh(κ) (``jackknife_z_se``);
    2. where that is degenerate (κ = ±1, or a leave-one-out κ undefined or ±1), the adjusted Wald
       interval ``adjusted_wald_kappa``.

    Chosen by simulation against the plain Wald interval with the Fleiss-Cohen-Everitt variance
    (coverage 0.76 at n = 30 and 10 % prevalence: it collapses to [1, 1] whenever every item
    agrees), the percentile bootstrap (0.75 there) and the adjusted Wald alone (0.90 for four
    categories at n = 30); coverage figures are in the tests.
    """
    t = np.asarray(tables, dtype=np.float64)
    kappa = kappa_parts(t, w)[0]
    se = jackknife_z_se(t, lambda x: kappa_parts(x, w)[0])
    low, high, jack = _fisher_z(kappa, se, confidence)
    undefined = np.isnan(kappa)
    if bool(np.all(jack | undefined)):
        wald_low = wald_high = low
    else:
        wald_low, wald_high = adjusted_wald_kappa(t, w, confidence)
    low = np.where(undefined, np.nan, np.where(jack, low, wald_low))
    high = np.where(undefined, np.nan, np.where(jack, high, wald_high))
    return low, high, jack & ~undefined


def adjusted_wald_kappa(
    tables: npt.NDArray[np.floating | np.integer], w: FloatArray, confidence: float
) -> tuple[FloatArray, FloatArray]:
    """κ̃ ± z·SE(κ̃), where κ̃ and its Fleiss-Cohen-Everitt standard error are computed on the table
    plus z² pseudo-items spread evenly over its k² cells (the Agresti-Coull idea for a proportion),
    clipped to [-1, 1] and widened if needed to contain the observed κ. Unlike the plain Wald
    interval it does not collapse to [1, 1] when every item agrees."""
    t = np.asarray(tables, dtype=np.float64)
    k = t.shape[-1]
    z_crit = float(ndtri(0.5 + confidence / 2.0))
    kappa = kappa_parts(t, w)[0]
    smoothed = t + z_crit**2 / k**2
    centre = kappa_parts(smoothed, w)[0]
    half = z_crit * kappa_standard_error(smoothed, w)
    low = np.minimum(np.clip(centre - half, -1.0, 1.0), kappa)
    high = np.maximum(np.clip(centre + half, -1.0, 1.0), kappa)
    return low, high
