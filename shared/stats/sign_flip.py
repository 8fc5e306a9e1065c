"""Exact paired sign-flip (permutation) test for small samples.

Under the null hypothesis that baseline and candidate are exchangeable within each pair, every
difference is as likely to have either sign. With n pairs there are 2**n equally likely sign
patterns; the p-value is the share of them whose mean difference is at least as far from zero as
the observed one. For n up to ``EXACT_MAX_PAIRS`` all patterns are enumerated (scipy's
``permutation_test``), so the p-value is exact.

Why not the bootstrap there: with few pairs the bootstrap distribution is too narrow. Three items
that all dropped by 0.2 give a bootstrap p of 1/(B+1) (every resample has mean -0.2), while the
exact test says 2/8 = 0.25: three coin flips all landing the same way is not evidence.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import permutation_test

from shared.stats.cleaning import FloatArray

EXACT_MAX_PAIRS = 16  # 65,536 sign patterns


def _mean(x: FloatArray, axis: int) -> FloatArray:
    out: FloatArray = np.mean(x, axis=axis)
    return out


def sign_flip_p_value(differences: FloatArray) -> float | None:
    """Two-sided exact p-value of mean(differences) = 0; None for fewer than 2 pairs.

    Raises ``ValueError`` above ``EXACT_MAX_PAIRS`` pairs (use the bootstrap there).
    """
    n = int(differences.size)
    if n < 2:
        return None
    if n > EXACT_MAX_PAIRS:
        raise ValueError(f"{n} pairs: the exact sign-flip test enumerates at most {EXACT_MAX_PAIRS}")
    if not np.any(differences):
        return 1.0
    result = permutation_test(
        (differences,),
        _mean,
        permutation_type="samples",
        n_resamples=np.inf,
        alternative="two-sided",
        vectorized=True,
        axis=-1,
    )
    return float(min(1.0, result.pvalue))


__all__ = ["EXACT_MAX_PAIRS", "sign_flip_p_value"]
