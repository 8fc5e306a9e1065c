"""Westfall-Young step-down min-P adjustment of a family of paired metrics, by joint sign flips.

Holm treats the metrics of a comparison as if they could be unrelated, so three near-copies of one
measurement (exact match, contains, a string similarity) cost a factor of three. Westfall and Young
(1993) keep the dependence: every metric is flipped with the SAME sign pattern per resample (under
the null, baseline and candidate are exchangeable within an item, whatever metric measures it), so
the resampled family carries the metrics' correlation, and near-copies cost almost nothing while
independent metrics cost about what Holm charges.

Rules, for ``differences`` of shape (m metrics, n pairs), NaN = a missing pair for that metric:

- Statistic of metric j under sign pattern s: T_j(s) = |Σᵢ sᵢ dᵢⱼ| / nⱼ over its nⱼ complete pairs
  (a missing pair contributes 0, as in ``pooled_flip_p_values``).
- Patterns: with at most ``exact_max_pairs`` active pairs (pairs where some tested metric has a
  nonzero difference; the others flip 0 to 0 and only multiply every count by the same power of 2)
  all 2ⁿ patterns are enumerated, the identity among them, and p = count / 2ⁿ. Beyond, B random
  patterns (``random_sign_bits``) plus the observed one: p = (1 + count) / (B + 1), as the
  single-metric Monte Carlo test does; valid at any B.
- Per pattern b and metric j, p*_bj = share of patterns whose T_j is ≥ T_j(b) (ties, within the
  same 1e-12 relative tolerance as ``sign_flip``, count as extreme); the raw p-value is p* of the
  observed pattern.
- Step-down: with the tested metrics ordered by raw p ascending, q_b(i) = min of p*_bj over the
  metrics ranked i..m; p̃₍ᵢ₎ = share of patterns with q_b(i) ≤ p₍ᵢ₎; then a running maximum makes
  the adjusted p-values monotone in the raw order (capped at 1). Reject where p̃ < alpha: strong
  control of the family-wise error rate under subset pivotality (the null metrics' differences
  are jointly sign-symmetric whatever the others do), as for every resampling step-down.
- A metric with fewer than 2 complete pairs is untested: raw and adjusted None. A metric with no
  nonzero difference gets raw and adjusted 1.0 (every pattern ties with the observed); neither
  enters the family (the second would change nothing there: its p* is 1 under every pattern).

Why min-P, not max-T: max-T compares the metrics' raw statistics, so the metric with the widest
null spread (a latency in ms beside 0/1 scores) decides the family's null distribution and the
others lose their power; and a discrete 0/1 metric with few discordant pairs has a lumpy statistic
that max-T cannot weigh against a continuous one. Min-P puts every metric on its own p-value scale
first. It also does what Tarone's refinement does for Holm, without a rule: a metric that cannot
reach a small p (two discordant pairs) never lowers the minimum, so it costs nothing.

Computation: the (patterns x pairs) sign matrix is produced in chunks of bounded memory, one matrix
product per chunk on one BLAS thread; each metric's null distribution is sorted once and every
p*_bj is a ``searchsorted`` of the sorted values into themselves. Memory beyond the chunks: a few
(patterns x metrics) arrays.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, Field

from shared.analysis.stats.cleaning import FloatArray
from shared.analysis.stats.errors import StatsInputError
from shared.analysis.stats.paired_many import one_blas_thread
from shared.analysis.stats.sign_flip import EXACT_MAX_PAIRS, random_sign_bits, resamples_for, sign_matrix

MAX_EXACT_PAIRS = 20
"""Largest ``exact_max_pairs`` accepted: 2**20 patterns, a few (patterns x metrics) arrays of 8 MB
a metric."""
_MAX_CHUNK_ELEMENTS = 4_000_000  # ≈ 32 MB of float64 signs per chunk
IntArray = npt.NDArray[np.int64]


class WestfallYoungResult(BaseModel, frozen=True):
    """Raw and Westfall-Young adjusted p-values of a family of metrics, in the input order."""

    raw: list[float | None] = Field(description="Each metric's own sign-flip p-value; None = untested")
    adjusted: list[float | None] = Field(
        description="Step-down min-P adjusted p-values (reject where < alpha); None = untested"
    )
    exact: bool = Field(description="True when every sign pattern was enumerated")
    resamples: int = Field(
        description="Sign patterns the p-values are shares of: 2**n when exact, else the B random ones "
        "(the observed pattern is counted on top: (1 + count) / (B + 1))"
    )


def westfall_young(
    differences: FloatArray,
    *,
    resamples: int | None = None,
    seed: int = 0,
    exact_max_pairs: int = EXACT_MAX_PAIRS,
) -> WestfallYoungResult:
    """Westfall-Young step-down min-P p-values of each row of ``differences`` (m metrics x n pairs,
    candidate - baseline, NaN = missing), all rows flipped with the same sign patterns.

    ``resamples``: random patterns when there are more than ``exact_max_pairs`` active pairs; None
    takes ``resamples_for(n)`` of the n active pairs (10,000 up to 1,000, 2,000 beyond). ``seed`` seeds them.
    """
    rows = _check(differences, resamples, exact_max_pairs)
    m = rows.shape[0]
    complete = ~np.isnan(rows)
    sizes = complete.sum(axis=1)
    filled = np.where(complete, rows, 0.0)
    nonzero = np.any(filled != 0.0, axis=1)
    family = np.flatnonzero((sizes >= 2) & nonzero)
    raw: list[float | None] = [1.0 if sizes[j] >= 2 else None for j in range(m)]
    adjusted = list(raw)
    active = filled[family][:, np.any(filled[family] != 0.0, axis=0)]
    n = active.shape[1]
    exact = n <= exact_max_pairs
    count = 2**n if exact else (resamples if resamples is not None else resamples_for(n))
    if family.size == 0:
        return WestfallYoungResult(raw=raw, adjusted=adjusted, exact=exact, resamples=count)
    with one_blas_thread():
        stats = _exact_statistics(active) if exact else _sampled_statistics(active, count, seed)
    stats /= sizes[family].astype(np.float64)
    observed = np.abs(active.sum(axis=1)) / sizes[family]
    family_raw, family_adjusted = _step_down(stats, observed)
    for pos, j in enumerate(family):
        raw[j], adjusted[j] = float(family_raw[pos]), float(family_adjusted[pos])
    return WestfallYoungResult(raw=raw, adjusted=adjusted, exact=exact, resamples=count)


def _check(differences: FloatArray, resamples: int | None, exact_max_pairs: int) -> FloatArray:
    rows = np.atleast_2d(np.asarray(differences, dtype=np.float64))
    if rows.ndim != 2:
        raise StatsInputError(
            f"differences must be a (metrics x pairs) matrix, got an array of shape {rows.shape}"
        )
    if np.any(np.isinf(rows)):
        raise StatsInputError("differences must be finite numbers or NaN (missing); found an infinity")
    if resamples is not None and resamples < 1:
        raise StatsInputError(f"resamples must be at least 1, got {resamples} (e.g. 10000)")
    if not 0 <= exact_max_pairs <= MAX_EXACT_PAIRS:
        raise StatsInputError(
            f"exact_max_pairs must lie in [0, {MAX_EXACT_PAIRS}], got {exact_max_pairs} "
            f"(2**n sign patterns are enumerated; the default is {EXACT_MAX_PAIRS})"
        )
    return rows


def _chunk(n: int, m: int) -> int:
    return max(1, min(_MAX_CHUNK_ELEMENTS // max(1, n), _MAX_CHUNK_ELEMENTS // max(1, m)))


def _exact_statistics(active: FloatArray) -> FloatArray:
    """|Σ sᵢ dᵢⱼ| under every one of the 2ⁿ patterns (bit i of the pattern's index = sign of pair i)."""
    m, n = active.shape
    total = 2**n
    out = np.empty((total, m), dtype=np.float64)
    powers = np.arange(n, dtype=np.int64)
    step = _chunk(n, m)
    for start in range(0, total, step):
        index = np.arange(start, min(total, start + step), dtype=np.int64)
        signs = ((index[:, None] >> powers) & 1).astype(np.float64) * 2.0 - 1.0
        out[start : start + index.size] = np.abs(signs @ active.T)
    return out


def _sampled_statistics(active: FloatArray, resamples: int, seed: int) -> FloatArray:
    """|Σ sᵢ dᵢⱼ| under the observed pattern (row 0) and ``resamples`` random ones."""
    m, n = active.shape
    bits = random_sign_bits(n, resamples, seed)
    out = np.empty((resamples + 1, m), dtype=np.float64)
    out[0] = np.abs(active.sum(axis=1))
    step = _chunk(n, m)
    for start in range(0, resamples, step):
        signs = sign_matrix(bits[start : start + step])
        out[1 + start : 1 + start + signs.shape[0]] = np.abs(signs @ active.T)
    return out


def _at_least(null: FloatArray, values: FloatArray) -> IntArray:
    """How many entries of the sorted ``null`` are ≥ each value (exact ties, within 1e-12
    relative, count as extreme, as in ``sign_flip``)."""
    threshold = values - 1e-12 * np.maximum(1.0, values)
    below = np.searchsorted(null, threshold, side="left")
    out: IntArray = null.size - below
    return out


def _step_down(stats: FloatArray, observed: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Raw and adjusted p-values from the statistics under every pattern (patterns x metrics)."""
    total, m = stats.shape
    counts = np.empty((total, m), dtype=np.int64)
    raw_counts = np.empty(m, dtype=np.int64)
    for j in range(m):
        rank = np.argsort(stats[:, j])
        null = stats[rank, j]
        counts[rank, j] = _at_least(null, null)  # sorted queries: a cache-friendly search
        raw_counts[j] = _at_least(null, observed[j : j + 1])[0]
    order = np.argsort(raw_counts, kind="stable")
    # q_b(i): the smallest p* among the metrics ranked i..m, for every pattern b
    tail_min = np.minimum.accumulate(counts[:, order[::-1]], axis=1)[:, ::-1]
    beaten = np.count_nonzero(tail_min <= raw_counts[order], axis=0)
    adjusted = np.empty(m, dtype=np.float64)
    adjusted[order] = np.minimum(1.0, np.maximum.accumulate(beaten / total))
    return raw_counts / total, adjusted


__all__ = ["MAX_EXACT_PAIRS", "WestfallYoungResult", "westfall_young"]
