"""Many paired comparisons on the same items at once (every metric of one comparison group).

``compare_paired_many(B, C)`` equals ``[compare_paired(B[i], C[i]) for i in range(m)]`` up to float
rounding, at a fraction of the cost: metrics with the same number of complete pairs share one set
of bootstrap resamples (as they already did through the cache) and one set of sign patterns, and
their resampled means and flipped means are single matrix products instead of one pass per metric.
"""

from __future__ import annotations

import functools

import numpy as np

from shared.contracts.statistics import PairedBootstrapResult, PairedComparison
from shared.stats.bootstrap import DEFAULT_RESAMPLES, bootstrap_means_many, bootstrap_result, paired_resamples
from shared.stats.cleaning import FloatArray, PairedArrays, pair_values
from shared.stats.paired_comparison import assemble_comparison, needs_monte_carlo
from shared.stats.sign_flip import flip_p_values, random_sign_bits, resamples_for


def _bootstraps(
    pairs: list[PairedArrays], resamples: int, seed: int, confidence: float
) -> list[PairedBootstrapResult]:
    out: list[PairedBootstrapResult | None] = [None] * len(pairs)
    by_n: dict[int, list[int]] = {}
    for i, p in enumerate(pairs):
        if p.n >= 2:
            by_n.setdefault(p.n, []).append(i)
        else:
            observed = float(p.differences.mean()) if p.n else None
            out[i] = PairedBootstrapResult(
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
    for n, rows in by_n.items():
        diffs = np.stack([pairs[i].differences for i in rows])
        means = bootstrap_means_many(diffs, paired_resamples(n, resamples), seed)
        for row, i in enumerate(rows):
            observed = float(pairs[i].differences.mean())
            out[i] = bootstrap_result(observed, means[row], n, pairs[i].n_dropped, confidence, seed)
    return [b for b in out if b is not None]


def _sign_flips(pairs: list[PairedArrays], seed: int) -> dict[int, float]:
    """Monte Carlo sign-flip p-values of the metrics that report that test, by index."""
    out: dict[int, float] = {}
    by_n: dict[int, list[int]] = {}
    for i, p in enumerate(pairs):
        if needs_monte_carlo(p):
            if np.any(p.differences):
                by_n.setdefault(p.n, []).append(i)
            else:
                out[i] = 1.0
    for n, rows in by_n.items():
        diffs = np.stack([pairs[i].differences for i in rows])
        p_values = flip_p_values(diffs, random_sign_bits(n, resamples_for(n), seed))
        out.update({i: float(p_values[row]) for row, i in enumerate(rows)})
    return out


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
    pairs = [pair_values(base[i], cand[i]) for i in range(base.shape[0])]
    boots = _bootstraps(pairs, resamples, seed, confidence)
    flips = _sign_flips(pairs, seed)
    return [
        assemble_comparison(base[i], cand[i], p, boot, confidence, functools.partial(flips.get, i))
        for i, (p, boot) in enumerate(zip(pairs, boots, strict=True))
    ]


__all__ = ["compare_paired_many"]
