"""Summaries of one sample: mean, median, percentiles and a confidence interval of the mean.

Percentiles use NumPy's default linear interpolation (Hyndman & Fan type 7), so p95 of a
sample is a real quantile, not a single sorted element picked by ``floor(0.95 n)``.
The interval is for the MEAN, not a range of raw values, and stays inside the metric's range. By
default (``auto``): pass/fail data (every value 0 or 1) gets the Wilson score interval, which stays
inside [0, 1] and is not degenerate at 0 % or 100 %; other scores in [0, 1] (partial credit,
recall, ndcg) get the percentile bootstrap (``SUMMARY_RESAMPLES`` resamples, fixed seed), which
stays inside the values' own range (a t-interval gave order_correctness 0.891 [0.776, 1.005]);
unbounded values (latency) get Student t. Beyond ``BOOTSTRAP_MAX_N`` values a bounded score's
interval is Student t clipped to the values' range (``t_clipped``). ``none`` skips the interval.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import ndtri, stdtrit  # type: ignore[import-untyped]

from shared.analysis.stats.bootstrap import bootstrap_means, percentile_interval
from shared.analysis.stats.cleaning import FloatArray, Values, drop_missing, is_binary
from shared.analysis.stats.errors import StatsInputError
from yardstick.api.statistics import CiMethod, Percentiles, Summary

SUMMARY_RESAMPLES = 2_000
BOOTSTRAP_MAX_N = 2_000
"""Above this many values a bounded score's interval is Student t clipped to the values' range:
the bootstrap would cost seconds per metric on large runs, and with this many values the two agree
except within a hair of the bound, where clipping keeps it inside the range."""


def clip_to_range(summary: Summary, bounds: tuple[float | None, float | None]) -> Summary:
    """``summary`` with its interval clipped to a metric's declared range (None: unbounded side)."""
    low, high = bounds
    if summary.ci_low is None or summary.ci_high is None:
        return summary
    ci_low = summary.ci_low if low is None else max(summary.ci_low, low)
    ci_high = summary.ci_high if high is None else min(summary.ci_high, high)
    return summary.model_copy(update={"ci_low": ci_low, "ci_high": ci_high})


def percentiles(values: Values) -> Percentiles:
    """p50, p95 and p99 of the finite values."""
    arr, _ = drop_missing(values)
    if arr.size == 0:
        return Percentiles(n=0)
    p50, p95, p99 = np.percentile(arr, [50.0, 95.0, 99.0])
    return Percentiles(n=int(arr.size), p50=float(p50), p95=float(p95), p99=float(p99))


def t_interval(values: FloatArray, confidence: float = 0.95) -> tuple[float, float] | None:
    """Student-t interval of the mean of finite ``values``; ``None`` below two values.

    Zero variance gives the degenerate interval [mean, mean].
    """
    if not 0.0 < confidence < 1.0:
        raise StatsInputError(f"confidence must be strictly between 0 and 1, got {confidence} (e.g. 0.95)")
    n = int(values.size)
    if n < 2:
        return None
    mean = float(values.mean())
    sem = float(values.std(ddof=1)) / np.sqrt(n)
    # Student t's quantile as scipy.stats.t.ppf computes it, without its per-call checks (0.2 ms)
    half = float(stdtrit(n - 1, 0.5 + confidence / 2.0)) * sem
    return mean - half, mean + half


def wilson_interval(values: FloatArray, confidence: float = 0.95) -> tuple[float, float] | None:
    """Wilson score interval of the proportion of ones among 0/1 ``values``; ``None`` if empty."""
    if not 0.0 < confidence < 1.0:
        raise StatsInputError(f"confidence must be strictly between 0 and 1, got {confidence} (e.g. 0.95)")
    n = int(values.size)
    if n == 0:
        return None
    if not is_binary(values):
        raise StatsInputError("the Wilson interval needs pass/fail values (each 0 or 1)")
    return wilson_bounds(int(values.sum()), n, confidence)


def wilson_bounds(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of ``k`` successes in ``n`` trials (``n`` > 0), without continuity
    correction: the arithmetic of ``scipy.stats.binomtest(k, n).proportion_ci(method="wilson")``
    (Newcombe 1998), written out because that call costs ~1 ms and a comparison makes hundreds."""
    z = float(ndtri(0.5 + 0.5 * confidence))
    p = k / n
    denom = 2 * (n + z**2)
    center = (2 * n * p + z**2) / denom
    delta = z / denom * math.sqrt(4 * n * p * (1 - p) + z**2)
    low = 0.0 if k == 0 else center - delta
    high = 1.0 if k == n else center + delta
    return low, high


def _resolve(ci_method: CiMethod, values: FloatArray) -> CiMethod:
    if ci_method != "auto":
        return ci_method
    if is_binary(values):
        return "wilson"
    if values.size and float(values.min()) >= 0.0 and float(values.max()) <= 1.0:
        return "bootstrap" if values.size <= BOOTSTRAP_MAX_N else "t_clipped"
    return "t"


def summarize(
    values: Values,
    *,
    confidence: float = 0.95,
    ci_method: CiMethod = "auto",
    resamples: int = SUMMARY_RESAMPLES,
    seed: int = 0,
) -> Summary:
    """Mean, sample SD, median, p95 and a ``confidence`` CI of the mean (see the module docstring)."""
    arr, dropped = drop_missing(values)
    n = int(arr.size)
    ci_method = _resolve(ci_method, arr)
    if n == 0:
        return Summary(n=0, n_dropped=dropped, confidence=confidence, ci_method=ci_method)
    median, p95 = np.percentile(arr, [50.0, 95.0])
    interval: tuple[float, float] | None
    if n < 2:
        interval = None
    elif ci_method == "t":
        interval = t_interval(arr, confidence)
    elif ci_method == "wilson":
        interval = wilson_interval(arr, confidence)
    elif ci_method == "none":
        interval = None
    elif ci_method == "t_clipped":
        t = t_interval(arr, confidence)
        low, high = float(arr.min()), float(arr.max())
        interval = None if t is None else (max(t[0], low), min(t[1], high))
    else:
        interval = percentile_interval(bootstrap_means(arr, resamples, seed), confidence)
    return Summary(
        n=n,
        n_dropped=dropped,
        mean=float(arr.mean()),
        sd=float(arr.std(ddof=1)) if n >= 2 else None,
        median=float(median),
        p95=float(p95),
        ci_low=interval[0] if interval else None,
        ci_high=interval[1] if interval else None,
        confidence=confidence,
        ci_method=ci_method,
    )
