"""Holm-Bonferroni step-down adjustment of a family of p-values, and Tarone's refinement of it.

Tarone (1990) for discrete tests: a hypothesis whose smallest attainable p-value p*ᵢ (given what its
test conditions on, ``shared.analysis.stats.attainable``) exceeds alpha/k cannot be rejected at alpha/k, so
it need not be counted. Tarone's family size at level alpha among hypotheses I is the smallest k
with #{i ∈ I : p*ᵢ ≤ alpha/k} ≤ k. The step-down version (Hommel & Krummenauer 1998) replaces
Holm's m - j + 1 at step j by that size among the hypotheses not yet rejected; it controls the
family-wise error rate at alpha (closed testing with Tarone-Bonferroni local tests, whose size only
shrinks on subsets). With every p* ≤ alpha/m it is Holm. Adjusted p-values are then relative to the
alpha they were computed at: reject where p̃ < alpha.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from shared.analysis.stats.errors import StatsInputError


def holm_adjust(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm-adjusted p-values, in the input order.

    ``None`` (an untested hypothesis) stays ``None`` and does not count towards the family
    size m. With the m tested p-values sorted ascending, p̃₍ᵢ₎ = max_{j≤i} min(1, (m - j + 1)·p₍ⱼ₎);
    rejecting where p̃ < alpha is Holm's procedure at family-wise level alpha.
    """
    tested = [i for i, p in enumerate(p_values) if p is not None]
    raw = np.array([p_values[i] for i in tested], dtype=np.float64)
    _check_unit(raw)
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


def tarone_size(min_p_values: Sequence[float], alpha: float) -> int:
    """Tarone's family size: the smallest k ≥ 1 with #{i : p*ᵢ ≤ alpha/k} ≤ k (0 for no hypotheses)."""
    if not min_p_values:
        return 0
    floors = np.sort(np.asarray(min_p_values, dtype=np.float64))
    sizes = np.arange(1, floors.size + 1)
    counts = np.searchsorted(floors, alpha / sizes, side="right")  # #{p* ≤ alpha/k} for each k
    return int(sizes[np.argmax(counts <= sizes)])  # counts[m-1] ≤ m always holds


def holm_tarone_adjust(
    p_values: Sequence[float | None], min_p_values: Sequence[float | None], alpha: float
) -> list[float | None]:
    """Holm adjusted p-values with Tarone's family sizes at level ``alpha``, in the input order.

    ``min_p_values[i]`` is hypothesis i's smallest attainable p-value (None = unknown, counted as
    0: always in the family). With the tested p-values sorted ascending and Kⱼ Tarone's size among
    the hypotheses from step j on, p̃₍ᵢ₎ = max_{j≤i} min(1, Kⱼ·p₍ⱼ₎); reject where p̃ < alpha.
    """
    _check_alpha(alpha)
    if len(min_p_values) != len(p_values):
        raise StatsInputError(f"{len(p_values)} p-values but {len(min_p_values)} attainable minima")
    tested = [i for i, p in enumerate(p_values) if p is not None]
    out: list[float | None] = [None] * len(p_values)
    raw = np.array([p_values[i] for i in tested], dtype=np.float64)
    _check_unit(raw)
    floors = np.array([min_p_values[i] or 0.0 for i in tested], dtype=np.float64)
    order = np.argsort(raw, kind="stable")
    running = 0.0
    for step, pos in enumerate(order):
        size = max(1, tarone_size(floors[order[step:]].tolist(), alpha))
        running = max(running, min(1.0, size * float(raw[pos])))
        out[tested[pos]] = running
    return out


def _check_alpha(alpha: float) -> None:
    if not 0.0 < alpha < 1.0 or math.isnan(alpha):
        raise StatsInputError(f"alpha must be strictly between 0 and 1, got {alpha} (e.g. 0.05)")


def _check_unit(raw: np.ndarray) -> None:  # type: ignore[type-arg]
    if raw.size and (not np.all(np.isfinite(raw)) or raw.min() < 0.0 or raw.max() > 1.0):
        raise StatsInputError(f"p-values must lie in [0, 1]; got {raw.tolist()}")


def holm_reject(p_values: Sequence[float | None], alpha: float = 0.05) -> list[bool]:
    """Which hypotheses Holm's procedure rejects at family-wise level ``alpha``."""
    _check_alpha(alpha)
    return [p is not None and p < alpha for p in holm_adjust(p_values)]
