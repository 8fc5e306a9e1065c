"""Mean with a t confidence interval per fixed-width time bucket (online metrics, drift charts)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import numpy as np
from scipy import stats as sps  # type: ignore[import-untyped]  # no scipy-stubs in dev deps

from shared.analysis.stats.cleaning import Values, to_float_array
from shared.analysis.stats.errors import StatsInputError
from yardstick.api.online import BucketMean

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _epoch_seconds(timestamps: Sequence[datetime]) -> np.ndarray[tuple[int], np.dtype[np.float64]]:
    # Naive datetimes are taken to be UTC (the database stores UTC).
    return np.array(
        [(t if t.tzinfo else t.replace(tzinfo=UTC)).timestamp() for t in timestamps], dtype=np.float64
    )


def bucketed_means(
    timestamps: Sequence[datetime],
    values: Values,
    *,
    width: timedelta,
    origin: datetime = _EPOCH,
    confidence: float = 0.95,
) -> list[BucketMean]:
    """Group ``values`` by ``floor((t - origin) / width)`` and summarise each non-empty bucket.

    ``None`` / NaN values are dropped; buckets without a finite value are omitted. Buckets
    are returned in time order. Vectorised: one ``np.unique`` and three ``np.bincount`` calls.
    """
    if width <= timedelta(0):
        raise StatsInputError(f"bucket width must be positive, got {width}")
    if not 0.0 < confidence < 1.0:
        raise StatsInputError(f"confidence must be strictly between 0 and 1, got {confidence} (e.g. 0.95)")
    vals = to_float_array(values)
    if len(timestamps) != vals.size:
        raise StatsInputError(
            f"timestamps and values must have equal length: {len(timestamps)} vs {vals.size}"
        )
    if vals.size == 0:
        return []
    origin_s = (origin if origin.tzinfo else origin.replace(tzinfo=UTC)).timestamp()
    width_s = width.total_seconds()
    bucket = np.floor((_epoch_seconds(timestamps) - origin_s) / width_s).astype(np.int64)
    keep = np.isfinite(vals)
    bucket, vals = bucket[keep], vals[keep]
    if vals.size == 0:
        return []
    keys, inverse = np.unique(bucket, return_inverse=True)
    counts = np.bincount(inverse).astype(np.float64)
    means = np.bincount(inverse, weights=vals) / counts
    squares = np.bincount(inverse, weights=(vals - means[inverse]) ** 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        sds = np.sqrt(squares / (counts - 1.0))
        tcrit = sps.t.ppf(0.5 + confidence / 2.0, df=np.maximum(counts - 1.0, 1.0))
        half = tcrit * sds / np.sqrt(counts)
    out: list[BucketMean] = []
    for key, n, mean, sd, h in zip(keys, counts, means, sds, half, strict=True):
        has_sd = n >= 2
        out.append(
            BucketMean(
                start=datetime.fromtimestamp(origin_s + int(key) * width_s, tz=UTC),
                n=int(n),
                mean=float(mean),
                sd=float(sd) if has_sd else None,
                ci_low=float(mean - h) if has_sd else None,
                ci_high=float(mean + h) if has_sd else None,
            )
        )
    return out
