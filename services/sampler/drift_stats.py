"""The one-sided unpaired test behind drift alerts: Welch's t-test (unequal variances).

``H1: recent mean < reference mean``. Both samples constant (SD 0) has no t statistic: then the
drop is certain (p = 0) when the means differ and absent (p = 1) when they are equal.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats as sps


def welch_less_p(recent: list[float], ref_mean: float, ref_sd: float | None, ref_n: int | None) -> float:
    """One-sided p-value that the recent mean is below the reference (given by its summary statistics).

    ``ref_sd``/``ref_n`` unknown (or n < 2): the reference mean is treated as fixed (one-sample t-test).
    """
    values = np.asarray(recent, dtype=np.float64)
    mean = float(values.mean())
    sd = float(values.std(ddof=1)) if values.size > 1 else 0.0
    fixed_reference = ref_sd is None or ref_n is None or ref_n < 2
    if sd == 0.0 and (fixed_reference or ref_sd == 0.0):
        return 0.0 if mean < ref_mean else 1.0
    if fixed_reference:
        result = sps.ttest_1samp(values, ref_mean, alternative="less")
    else:
        result = sps.ttest_ind_from_stats(
            mean, sd, values.size, ref_mean, ref_sd, ref_n, equal_var=False, alternative="less"
        )
    p = float(result.pvalue)
    return 1.0 if math.isnan(p) else p


def welch_less_p_samples(recent: list[float], previous: list[float]) -> float:
    prev = np.asarray(previous, dtype=np.float64)
    sd = float(prev.std(ddof=1)) if prev.size > 1 else None
    return welch_less_p(recent, float(prev.mean()), sd, int(prev.size))
