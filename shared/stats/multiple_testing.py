"""Holm-Bonferroni step-down adjustment of a family of p-values."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from shared.stats.errors import StatsInputError


def holm_adjust(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm-adjusted p-values, in the input order.

    ``None`` (an untested hypothesis) stays ``None`` and does not count towards the family
    size m. With the m tested p-values sorted ascending, p̃₍ᵢ₎ = max_{j≤i} min(1, (m - j + 1)·p₍ⱼ₎);
    rejecting where p̃ < alpha is Holm's procedure at family-wise level alpha.
    """
    tested = [i for i, p in enumerate(p_values) if p is not None]
    raw = np.array([p_values[i] for i in tested], dtype=np.float64)
    if raw.size and (not np.all(np.isfinite(raw)) or raw.min() < 0.0 or raw.max() > 1.0):
        raise StatsInputError(f"p-values must lie in [0, 1]; got {raw.tolist()}")
    out: list[float | None] = [None] * len(p_values)
    if raw.size == 0:
        return out
    m = raw.size
    order = np.argsort(raw, kind="stable")
    scaled = np.minimum(1.0, (m - np.arange(m)) * raw[order])
    adjusted_sorted = np.maximum.accumulate(scaled)
    adjusted = np.empty(m, dtype=np.float64)
    adjusted[order] = adjusted_sorted
    for pos, value in zip(tested, adjusted, strict=True):
        out[pos] = float(value)
    return out


def holm_reject(p_values: Sequence[float | None], alpha: float = 0.05) -> list[bool]:
    """Which hypotheses Holm's procedure rejects at family-wise level ``alpha``."""
    if not 0.0 < alpha < 1.0 or math.isnan(alpha):
        raise StatsInputError(f"alpha must be strictly between 0 and 1, got {alpha} (e.g. 0.05)")
    return [p is not None and p < alpha for p in holm_adjust(p_values)]
