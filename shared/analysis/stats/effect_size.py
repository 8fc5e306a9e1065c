"""Standardised effect sizes for a baseline → candidate change.

- ``cohens_d``: the retrieval-regression report's pooled form,
  (mean_c - mean_b) / sqrt((s_b² + s_c²) / 2), but with SAMPLE standard deviations (ddof=1), where
  the requirement's sketch used population SDs.
- ``cohens_dz``: the paired effect size, mean(d) / sd(d) over per-item differences d.

Both are ``None`` when undefined (fewer than two values, or zero spread with a non-zero
difference); zero spread with zero difference gives 0.
"""

from __future__ import annotations

import math

from shared.analysis.stats.cleaning import FloatArray


def _standardise(delta: float, spread: float, scale: float) -> float | None:
    # Spreads within rounding noise of the data's magnitude count as zero.
    tol = 1e-12 * max(1.0, scale)
    if spread > tol and math.isfinite(spread):
        return delta / spread
    return 0.0 if abs(delta) <= tol else None


def cohens_d(baseline: FloatArray, candidate: FloatArray) -> float | None:
    """Pooled Cohen's d (sample SDs, equal weights) of candidate vs baseline."""
    if baseline.size < 2 or candidate.size < 2:
        return None
    delta = float(candidate.mean() - baseline.mean())
    pooled = math.sqrt((float(baseline.var(ddof=1)) + float(candidate.var(ddof=1))) / 2.0)
    scale = max(float(abs(baseline).max()), float(abs(candidate).max()))
    return _standardise(delta, pooled, scale)


def cohens_dz(differences: FloatArray) -> float | None:
    """Paired effect size d_z = mean(d) / sd(d) (ddof=1)."""
    if differences.size < 2:
        return None
    scale = float(abs(differences).max())
    return _standardise(float(differences.mean()), float(differences.std(ddof=1)), scale)
