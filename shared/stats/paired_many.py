"""Many paired comparisons on the same items at once (every metric of one comparison group).

``compare_paired_many(B, C)`` equals ``[compare_paired(B[i], C[i]) for i in range(m)]`` up to float
rounding, at a fraction of the cost: metrics with the same number of complete pairs share one set
of bootstrap resamples (as they already did through the cache) and one set of sign patterns, and
their resampled means and flipped means are single matrix products instead of one pass per metric.

Metrics with missing values (fewer complete pairs than columns) share the resamples and sign
patterns of all n columns too, when they have at least ``SHARED_MIN_PAIRS`` complete pairs: the
bootstrap averages the drawn pairs that are complete (``bootstrap_means_many(present=…)``), the
sign flip leaves the missing pairs at 0 (``flip_p_values(sizes=…)``). Without that, every metric
missing a different number of values drew its own (B, n) matrices: 20 metrics x 16 groups of a
10,000-item comparison spent a minute there. The sign-flip p-value is the same test (independent
signs on the complete pairs); the bootstrap interval agrees with a bootstrap of the complete pairs
within Monte Carlo error (``tests/shared/stats/test_paired_many.py``). Below ``SHARED_MIN_PAIRS``
such a metric is resampled alone, as before.

The matrix products run on one BLAS thread (``one_blas_thread``): they are small (a block of 25
resamples by n) and OpenBLAS's threads, spinning against other busy processes, made them up to 20
times slower on a loaded 2-core machine (bootstrap of 22 metrics x 10,000 pairs: 35 s with its
default threads, 1.6 s with one; measured Nov 2026 with other test suites running).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import numpy.typing as npt
from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

from shared.contracts.statistics import PairedBootstrapResult, PairedComparison
from shared.stats.bootstrap import DEFAULT_RESAMPLES, bootstrap_means_many, bootstrap_result, paired_resamples
from shared.stats.cleaning import FloatArray, PairedArrays, pair_values
from shared.stats.paired_comparison import assemble_comparison, needs_monte_carlo
from shared.stats.sign_flip import flip_p_values, random_sign_bits, resamples_for

BoolArray = npt.NDArray[np.bool_]


SHARED_MIN_PAIRS = 100
"""Complete pairs a metric with missing values needs to share its group's resamples (the chance that
a resample draws none of them is then below e**-100)."""


def _bootstrap_alone(p: PairedArrays, resamples: int, seed: int, confidence: float) -> PairedBootstrapResult:
    observed = float(p.differences.mean()) if p.n else None
    return PairedBootstrapResult(
        n_pairs=p.n,
        n_dropped=p.n_dropped,
        mean_difference=observed,
        ci_low=None,
        ci_high=None,
        p_value=None,
        confidence=confidence,
        resamples=resamples,
        seed=seed,
    )


def _shares(p: PairedArrays, n: int) -> bool:
    """Whether a metric with ``p`` complete pairs among n columns uses the columns' resamples."""
    return p.n == n or p.n >= SHARED_MIN_PAIRS


def _bootstraps(
    pairs: list[PairedArrays],
    differences: FloatArray,
    complete: BoolArray,
    *,
    resamples: int,
    seed: int,
    confidence: float,
) -> list[PairedBootstrapResult]:
    """Per metric: ``differences`` (m, n; 0 where ``complete`` is false) of its complete pairs."""
    n = differences.shape[1]
    out: list[PairedBootstrapResult | None] = [None] * len(pairs)
    shared: dict[int, list[int]] = {}  # by resamples: metrics on every column's resamples
    alone: dict[int, list[int]] = {}  # by complete pairs: metrics resampled on their own
    for i, p in enumerate(pairs):
        if p.n < 2:
            out[i] = _bootstrap_alone(p, resamples, seed, confidence)
        elif _shares(p, n):
            shared.setdefault(paired_resamples(p.n, resamples), []).append(i)
        else:
            alone.setdefault(p.n, []).append(i)
    for count, rows in shared.items():
        means = bootstrap_means_many(differences[rows], count, seed, present=complete[rows])
        for row, i in enumerate(rows):
            observed = float(pairs[i].differences.mean())
            out[i] = bootstrap_result(observed, means[row], pairs[i].n, pairs[i].n_dropped, confidence, seed)
    for k, rows in alone.items():
        means = bootstrap_means_many(
            np.stack([pairs[i].differences for i in rows]), paired_resamples(k, resamples), seed
        )
        for row, i in enumerate(rows):
            observed = float(pairs[i].differences.mean())
            out[i] = bootstrap_result(observed, means[row], k, pairs[i].n_dropped, confidence, seed)
    return [b for b in out if b is not None]


def _sign_flips(pairs: list[PairedArrays], differences: FloatArray, seed: int) -> dict[int, float]:
    """Monte Carlo sign-flip p-values of the metrics that report that test, by index."""
    n = differences.shape[1]
    out: dict[int, float] = {}
    shared: dict[int, list[int]] = {}  # by patterns drawn: metrics on every column's patterns
    alone: dict[int, list[int]] = {}
    for i, p in enumerate(pairs):
        if needs_monte_carlo(p):
            if not np.any(p.differences):
                out[i] = 1.0
            elif _shares(p, n):
                shared.setdefault(resamples_for(p.n), []).append(i)
            else:
                alone.setdefault(p.n, []).append(i)
    for count, rows in shared.items():
        sizes = np.array([pairs[i].n for i in rows], dtype=np.float64)
        p_values = flip_p_values(differences[rows], random_sign_bits(n, count, seed), sizes)
        out.update({i: float(p_values[row]) for row, i in enumerate(rows)})
    for k, rows in alone.items():
        diffs = np.stack([pairs[i].differences for i in rows])
        p_values = flip_p_values(diffs, random_sign_bits(k, resamples_for(k), seed))
        out.update({i: float(p_values[row]) for row, i in enumerate(rows)})
    return out


_BLAS_LIMIT = threading.Lock()


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """BLAS on one thread inside (the limit is process-wide: comparisons take turns, so that one
    leaving cannot restore the threads under another)."""
    with _BLAS_LIMIT, threadpool_limits(limits=1, user_api="blas"):
        yield


def compare_paired_many(
    baseline: FloatArray,
    candidate: FloatArray,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    confidence: float = 0.95,
) -> list[PairedComparison]:
    """``compare_paired`` of every row of ``baseline`` and ``candidate`` (shape ``(m, n)``, NaN =
    missing), computed together."""
    base, cand = np.atleast_2d(baseline), np.atleast_2d(candidate)
    with one_blas_thread():
        return _compare_many(base, cand, resamples, seed, confidence)


def _compare_many(
    base: FloatArray, cand: FloatArray, resamples: int, seed: int, confidence: float
) -> list[PairedComparison]:
    pairs = [pair_values(base[i], cand[i]) for i in range(base.shape[0])]
    complete = np.isfinite(base) & np.isfinite(cand)
    with np.errstate(invalid="ignore"):
        differences = np.where(complete, cand - base, 0.0)
    boots = _bootstraps(pairs, differences, complete, resamples=resamples, seed=seed, confidence=confidence)
    flips = _sign_flips(pairs, differences, seed)
    return [
        assemble_comparison(base[i], cand[i], p, boot, confidence, functools.partial(flips.get, i))
        for i, (p, boot) in enumerate(zip(pairs, boots, strict=True))
    ]


__all__ = ["compare_paired_many"]
