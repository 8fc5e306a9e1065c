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
within Monte Carlo error (``tests/shared/analysis/stats/test_paired_many.py``). Below ``SHARED_MIN_PAIRS``
such a metric is resampled alone, as before.

``compare_paired_groups`` goes one step further for a comparison's breakdown (the whole run and each
group of items, e.g. 15 groups of 3 keys): every metric of every group with at least
``SHARED_MIN_PAIRS`` complete pairs uses one index matrix and one sign-pattern matrix per resample
count, as wide as the widest group, each group on its first columns (``pooled_bootstrap_means``,
``pooled_flip_p_values``): drawn and counted once instead of once per group. The sign flip is still
the same test; a narrower group's bootstrap averages the drawn items that land on its columns, which
agrees with its own bootstrap within Monte Carlo error
(``tests/shared/analysis/stats/test_paired_groups.py``). The resample counts are those of each group alone.

The matrix products run on one BLAS thread (``one_blas_thread``): they are small (a block of 25
resamples by n) and OpenBLAS's threads, spinning against other busy processes, made them up to 20
times slower on a loaded 2-core machine (bootstrap of 22 metrics x 10,000 pairs: 35 s with its
default threads, 1.6 s with one; measured Nov 2026 with other test suites running).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

from shared.analysis.stats.bootstrap import (
    DEFAULT_RESAMPLES,
    bootstrap_result,
    paired_resamples,
    pooled_bootstrap_means,
)
from shared.analysis.stats.cleaning import FloatArray, PairedArrays, pair_values
from shared.analysis.stats.paired_comparison import assemble_comparison, needs_monte_carlo
from shared.analysis.stats.sign_flip import pooled_flip_p_values, random_sign_bits, resamples_for
from yardstick.api.statistics import PairedBootstrapResult, PairedComparison

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


@dataclass
class _Group:
    """One group of columns: per metric (row) its complete pairs, and its differences over the
    group's columns (0 where a pair is not complete)."""

    pairs: list[PairedArrays]
    differences: FloatArray
    complete: BoolArray

    @classmethod
    def of(cls, base: FloatArray, cand: FloatArray) -> _Group:
        complete = np.isfinite(base) & np.isfinite(cand)
        with np.errstate(invalid="ignore"):
            differences = np.where(complete, cand - base, 0.0)
        return cls([pair_values(base[i], cand[i]) for i in range(base.shape[0])], differences, complete)


_WIDE = -1
"""Pool of the metrics with at least ``SHARED_MIN_PAIRS`` complete pairs: on the widest group's
resamples, each group on their first columns (``pooled_bootstrap_means``)."""
Job = tuple[int, int]  # (group, metric row)


def _pool(p: PairedArrays) -> int:
    """Which resamples a metric with ``p`` complete pairs uses: the wide pool, or those of exactly its
    own number of complete pairs, drawn on those pairs alone (as ``compare_paired`` does)."""
    return _WIDE if p.n >= SHARED_MIN_PAIRS else p.n


def _block(
    groups: list[_Group], key: int, jobs: list[Job]
) -> tuple[FloatArray, BoolArray | None, FloatArray]:
    """The rows of one group's ``jobs`` for pool ``key``: (differences, complete or None, sizes)."""
    g = groups[jobs[0][0]]
    rows = [i for _, i in jobs]
    sizes = np.array([g.pairs[i].n for i in rows], dtype=np.float64)
    if key == _WIDE:
        return g.differences[rows], g.complete[rows], sizes
    return np.stack([g.pairs[i].differences for i in rows]), None, sizes


def _pools(groups: list[_Group], wanted: dict[Job, int]) -> dict[tuple[int, int], dict[int, list[Job]]]:
    """Jobs by (resamples, pool) then by group, from each job's resample count."""
    out: dict[tuple[int, int], dict[int, list[Job]]] = {}
    for (g, i), count in wanted.items():
        key = (count, _pool(groups[g].pairs[i]))
        out.setdefault(key, {}).setdefault(g, []).append((g, i))
    return out


def _bootstraps(
    groups: list[_Group], *, resamples: int, seed: int, confidence: float
) -> dict[Job, PairedBootstrapResult]:
    out: dict[Job, PairedBootstrapResult] = {}
    wanted: dict[Job, int] = {}
    for g, group in enumerate(groups):
        for i, p in enumerate(group.pairs):
            if p.n < 2:
                out[g, i] = _bootstrap_alone(p, resamples, seed, confidence)
            else:
                wanted[g, i] = paired_resamples(p.n, resamples)
    for (count, key), by_group in _pools(groups, wanted).items():
        blocks = [_block(groups, key, jobs) for jobs in by_group.values()]
        means = pooled_bootstrap_means([b[0] for b in blocks], [b[1] for b in blocks], count, seed)
        for jobs, block_means in zip(by_group.values(), means, strict=True):
            for row, (g, i) in enumerate(jobs):
                p = groups[g].pairs[i]
                observed = float(p.differences.mean())
                out[g, i] = bootstrap_result(observed, block_means[row], p.n, p.n_dropped, confidence, seed)
    return out


def _sign_flips(groups: list[_Group], seed: int) -> dict[Job, float]:
    """Monte Carlo sign-flip p-values of the metrics that report that test."""
    out: dict[Job, float] = {}
    wanted: dict[Job, int] = {}
    for g, group in enumerate(groups):
        for i, p in enumerate(group.pairs):
            if needs_monte_carlo(p):
                if not np.any(p.differences):
                    out[g, i] = 1.0
                else:
                    wanted[g, i] = resamples_for(p.n)
    for (count, key), by_group in _pools(groups, wanted).items():
        blocks = [_block(groups, key, jobs) for jobs in by_group.values()]
        width = max(b[0].shape[1] for b in blocks)
        p_values = pooled_flip_p_values(
            [b[0] for b in blocks],
            [b[2] if key == _WIDE else None for b in blocks],
            random_sign_bits(width, count, seed),
        )
        for jobs, block_p in zip(by_group.values(), p_values, strict=True):
            out.update({job: float(block_p[row]) for row, job in enumerate(jobs)})
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
    """``compare_paired(baseline[i], candidate[i], ...)`` of every row of ``baseline`` and
    ``candidate`` (shape ``(m, n)``, NaN = missing), computed together."""
    base = np.atleast_2d(baseline)
    return compare_paired_groups(
        base, candidate, [np.arange(base.shape[1])], resamples=resamples, seed=seed, confidence=confidence
    )[0]


def compare_paired_groups(
    baseline: FloatArray,
    candidate: FloatArray,
    groups: Sequence[npt.NDArray[np.intp]],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    confidence: float = 0.95,
) -> list[list[PairedComparison]]:
    """``compare_paired_many(baseline[:, g], candidate[:, g], ...)`` for every group g of columns (the
    whole run, then each breakdown group), computed together: the groups share one draw of resamples
    and sign patterns per resample count (module docstring). The first group as wide as the widest
    gets exactly what ``compare_paired_many`` gives it."""
    base, cand = np.atleast_2d(baseline), np.atleast_2d(candidate)
    with one_blas_thread():
        parts = [_Group.of(base[:, members], cand[:, members]) for members in groups]
        boots = _bootstraps(parts, resamples=resamples, seed=seed, confidence=confidence)
        flips = _sign_flips(parts, seed)
        return [
            [
                assemble_comparison(
                    base[i, members],
                    cand[i, members],
                    p,
                    boots[g, i],
                    confidence,
                    functools.partial(flips.get, (g, i)),
                )
                for i, p in enumerate(part.pairs)
            ]
            for g, (members, part) in enumerate(zip(groups, parts, strict=True))
        ]


__all__ = ["compare_paired_groups", "compare_paired_many"]
