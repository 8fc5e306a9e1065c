"""Vectorised bootstrap of the mean, and the paired bootstrap test on item differences.

Resampling draws one ``(B, n)`` int32 matrix of indices from ``numpy.random.default_rng(seed)``
(row chunks when B x n > 8M - the generator yields the same numbers either way), so a result
depends only on the data, ``B`` and the seed. The last two matrices are cached: every metric
of a comparison with the same number of pairs reuses the same resamples of the items.

``bootstrap_means_many`` resamples several samples of the same size at once with those same
indices: each resample becomes a row of counts (how often each item was drawn) and the means of
every sample are one matrix product, instead of one gather of B x n values per sample.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator

import numpy as np
import numpy.typing as npt

from shared.analysis.stats.cleaning import FloatArray, Values, pair_values
from shared.analysis.stats.errors import StatsInputError
from yardstick.api.statistics import PairedBootstrapResult

DEFAULT_RESAMPLES = 10_000
LARGE_N = 1_000
LARGE_N_RESAMPLES = 2_000
"""Beyond ``LARGE_N`` pairs the paired bootstrap draws at most ``LARGE_N_RESAMPLES``: the percentile
interval's Monte Carlo error is already small next to its width there, and a comparison of two
10,000-item runs spent most of its 25 s drawing 10,000 x 10,000 indices per metric and group."""
_MAX_MATRIX_ELEMENTS = 8_000_000  # ≈ 32 MB of int32 indices per matrix / chunk
IndexArray = npt.NDArray[np.int32]


def _check_resampling(resamples: int, confidence: float) -> None:
    if resamples < 1:
        raise StatsInputError(f"resamples must be ≥ 1, got {resamples}; 10,000 is the usual choice")
    if not 0.0 < confidence < 1.0:
        raise StatsInputError(f"confidence must be strictly between 0 and 1, got {confidence} (e.g. 0.95)")


@functools.lru_cache(maxsize=2)
def _index_matrix(n: int, rows: int, seed: int) -> IndexArray:
    """The whole (rows, n) index matrix; cached so every metric of a family reuses it."""
    idx = np.random.default_rng(seed).integers(0, n, size=(rows, n), dtype=np.int32)
    idx.flags.writeable = False
    return idx


def bootstrap_means(values: FloatArray, resamples: int = DEFAULT_RESAMPLES, seed: int = 0) -> FloatArray:
    """Means of ``resamples`` with-replacement resamples of ``values`` (shape ``(resamples,)``).

    ``values`` must be finite and non-empty (use ``drop_missing`` / ``pair_values`` first).
    Resample b uses row b of ``default_rng(seed).integers(0, n, (resamples, n), dtype=int32)``.
    """
    n = int(values.size)
    if n == 0:
        raise StatsInputError("cannot bootstrap an empty sample; drop the metric or collect data first")
    _check_resampling(resamples, 0.5)
    if resamples * n <= _MAX_MATRIX_ELEMENTS:
        means: FloatArray = values[_index_matrix(n, resamples, seed)].mean(axis=1)
        return means
    rng = np.random.default_rng(seed)
    rows_per_chunk = max(1, _MAX_MATRIX_ELEMENTS // n)
    out = np.empty(resamples, dtype=np.float64)
    for start in range(0, resamples, rows_per_chunk):
        stop = min(resamples, start + rows_per_chunk)
        idx = rng.integers(0, n, size=(stop - start, n), dtype=np.int32)
        out[start:stop] = values[idx].mean(axis=1)
    return out


_COUNT_BLOCK_ELEMENTS = 1_000_000  # rows of counts turned into means at once (8 MB of float64: 100 resamples
# of 10,000 items; 25 at a time made the products slower, per profile on the bench's data)


def index_blocks(n: int, resamples: int, seed: int) -> Iterator[tuple[int, IndexArray]]:
    """The rows of the ``(resamples, n)`` index matrix of seed ``seed``, in blocks of bounded size
    (first row, block): the cached whole matrix up to 8M indices, row chunks drawn from one generator
    beyond (the same numbers)."""
    step = max(1, _COUNT_BLOCK_ELEMENTS // n)
    if resamples * n <= _MAX_MATRIX_ELEMENTS:
        whole = _index_matrix(n, resamples, seed)
        for start in range(0, resamples, step):
            yield start, whole[start : start + step]
        return
    rng = np.random.default_rng(seed)
    rows_per_chunk = max(1, _MAX_MATRIX_ELEMENTS // n)
    for chunk_start in range(0, resamples, rows_per_chunk):
        rows = min(resamples, chunk_start + rows_per_chunk) - chunk_start
        chunk = rng.integers(0, n, size=(rows, n), dtype=np.int32)
        for start in range(0, rows, step):
            yield chunk_start + start, chunk[start : start + step]


def resample_counts(block: IndexArray) -> FloatArray:
    """How often each of the n items is drawn by each resample (row) of ``block`` (r, n)."""
    rows, n = block.shape
    flat = (block + (np.arange(rows, dtype=np.int64) * n)[:, None]).ravel()
    counts: FloatArray = np.bincount(flat, minlength=rows * n).reshape(rows, n).astype(np.float64)
    return counts


def bootstrap_means_many(
    samples: FloatArray,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    present: npt.NDArray[np.bool_] | None = None,
) -> FloatArray:
    """``bootstrap_means`` of every row of ``samples`` (shape ``(k, n)``), shape ``(k, resamples)``:
    row i equals ``bootstrap_means(samples[i], resamples, seed)`` up to float rounding (the same
    resampled indices, summed in another order).

    With ``present`` (shape ``(k, n)``), row i's values are those of ``samples[i]`` where
    ``present[i]`` is true, and each resample draws n items among all n as before and averages the
    drawn ones that are present (a ratio of sums: the number averaged varies around the row's count
    of present values, the estimate's spread stays that of a bootstrap of those values). Rows with
    different missing values share one set of resamples; a resample without any present item gives
    NaN (probability (1 - present/n)**n: keep rows with few present values out)."""
    rows = np.atleast_2d(samples)
    if int(rows.shape[1]) == 0:
        raise StatsInputError("cannot bootstrap an empty sample; drop the metric or collect data first")
    _check_resampling(resamples, 0.5)
    return pooled_bootstrap_means([rows], [present], resamples, seed)[0]


def pooled_bootstrap_means(
    samples: list[FloatArray],
    present: list[npt.NDArray[np.bool_] | None],
    resamples: int,
    seed: int,
) -> list[FloatArray]:
    """``bootstrap_means_many(samples[j], resamples, seed, present[j])`` for blocks of different
    widths n_j, on ONE index matrix of the widest block's width W: block j takes the first n_j
    columns (its items stand at those places). A resample then draws W items, of which those landing
    on the block's columns and present are averaged: for a narrower block the number averaged varies
    around n_j (the ratio-of-sums bootstrap of ``present``); its interval agrees with the block's own
    bootstrap within Monte Carlo error as long as it has enough present values (``SHARED_MIN_PAIRS``
    in ``paired_many``). The matrix is drawn and counted once for every block: the breakdown groups
    of a comparison share the resamples of the whole run. A block as wide as W gets exactly what
    ``bootstrap_means_many`` gives it alone."""
    width = max(int(s.shape[1]) for s in samples)
    stacked: list[tuple[FloatArray, bool]] = []  # (values, or values over present counts; masked)
    for values, mask in zip(samples, present, strict=True):
        if mask is None:
            stacked.append((values, False))
        else:
            weights = np.atleast_2d(mask).astype(np.float64)
            stacked.append((np.vstack([np.where(weights > 0.0, values, 0.0), weights]), True))
    outs = [np.empty((s.shape[0], resamples), dtype=np.float64) for s in samples]
    with np.errstate(invalid="ignore", divide="ignore"):
        for start, block in index_blocks(width, resamples, seed):
            counts = resample_counts(block)
            stop = start + block.shape[0]
            for out, (values, masked) in zip(outs, stacked, strict=True):
                n = values.shape[1]
                sums = values @ counts[:, :n].T
                if not masked:
                    out[:, start:stop] = sums / n if n == width else sums / counts[:, :n].sum(axis=1)
                else:
                    k = out.shape[0]
                    out[:, start:stop] = sums[:k] / sums[k:]
    return outs


def percentile_interval(samples: FloatArray, confidence: float = 0.95) -> tuple[float, float]:
    """The central ``confidence`` interval of a bootstrap distribution (linear interpolation)."""
    _check_resampling(1, confidence)
    alpha = 1.0 - confidence
    low, high = np.quantile(samples, [alpha / 2.0, 1.0 - alpha / 2.0])
    return float(low), float(high)


def paired_bootstrap(
    baseline: Values,
    candidate: Values,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    confidence: float = 0.95,
) -> PairedBootstrapResult:
    """Paired bootstrap test of mean(candidate - baseline) = 0; see ``PairedBootstrapResult``."""
    _check_resampling(resamples, confidence)
    pairs = pair_values(baseline, candidate)
    diffs = pairs.differences
    n = pairs.n
    common = {
        "n_pairs": n,
        "n_dropped": pairs.n_dropped,
        "confidence": confidence,
        "resamples": resamples,
        "seed": seed,
    }
    if n == 0:
        return PairedBootstrapResult(mean_difference=None, ci_low=None, ci_high=None, p_value=None, **common)
    observed = float(diffs.mean())
    if n == 1:
        return PairedBootstrapResult(
            mean_difference=observed, ci_low=None, ci_high=None, p_value=None, **common
        )
    resamples = paired_resamples(n, resamples)
    means = bootstrap_means(diffs, resamples, seed)
    return bootstrap_result(observed, means, n, pairs.n_dropped, confidence, seed)


def paired_resamples(n: int, resamples: int) -> int:
    """Resamples the paired bootstrap draws for n pairs (capped beyond ``LARGE_N``)."""
    return min(resamples, LARGE_N_RESAMPLES) if n > LARGE_N else resamples


def bootstrap_result(
    observed: float, means: FloatArray, n: int, n_dropped: int, confidence: float, seed: int
) -> PairedBootstrapResult:
    """The paired bootstrap's interval and p-value from the resampled mean differences ``means``
    of n pairs (``means.size`` resamples) whose observed mean difference is ``observed``."""
    resamples = int(means.size)
    low, high = percentile_interval(means, confidence)
    # Tolerance keeps exact ties (e.g. identical runs, d̄ = 0) from being lost to rounding.
    tol = 1e-12 * max(1.0, abs(observed))
    extreme = int(np.count_nonzero(np.abs(means - observed) >= abs(observed) - tol))
    return PairedBootstrapResult(
        n_pairs=n,
        n_dropped=n_dropped,
        mean_difference=observed,
        ci_low=low,
        ci_high=high,
        p_value=(extreme + 1) / (resamples + 1),
        confidence=confidence,
        resamples=resamples,
        seed=seed,
    )
