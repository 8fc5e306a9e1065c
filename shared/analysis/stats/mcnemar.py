"""Exact McNemar test for paired pass/fail (0/1) outcomes."""

from __future__ import annotations

import numpy as np
from scipy import stats as sps  # type: ignore[import-untyped]  # no scipy-stubs in dev deps

from shared.analysis.stats.cleaning import Values, is_binary, pair_values
from shared.analysis.stats.errors import StatsInputError
from yardstick.api.statistics import McNemarResult


def mcnemar_exact(baseline: Values, candidate: Values) -> McNemarResult:
    """Exact McNemar test; both samples must hold only 0/1 (bools allowed) or missing values."""
    pairs = pair_values(baseline, candidate)
    for side, arr in (("baseline", pairs.baseline), ("candidate", pairs.candidate)):
        if arr.size and not is_binary(arr):
            raise StatsInputError(
                f"McNemar needs 0/1 outcomes but the {side} sample has other values; "
                "use paired_bootstrap for continuous scores"
            )
    b = int(np.count_nonzero((pairs.baseline == 1.0) & (pairs.candidate == 0.0)))
    c = int(np.count_nonzero((pairs.baseline == 0.0) & (pairs.candidate == 1.0)))
    # binomtest(b, b + c, 0.5).pvalue: at p = 0.5 the distribution is symmetric, so the two-sided
    # exact p-value is twice the smaller tail (capped at 1), one CDF call instead of a search.
    p_value = 1.0 if b + c == 0 else min(1.0, 2.0 * float(sps.binom.cdf(min(b, c), b + c, 0.5)))
    return McNemarResult(
        n_pairs=pairs.n, n_dropped=pairs.n_dropped, baseline_only=b, candidate_only=c, p_value=p_value
    )
