"""Statistics for evaluation runs: summaries, paired tests, effect sizes, multiple testing.

Pure NumPy / SciPy, vectorised; every function drops ``None`` / NaN and reports how many.
"""

from shared.stats.bootstrap import (
    DEFAULT_RESAMPLES,
    PairedBootstrapResult,
    bootstrap_means,
    paired_bootstrap,
    percentile_interval,
)
from shared.stats.cleaning import FloatArray, PairedArrays, Values, drop_missing, is_binary, pair_values
from shared.stats.descriptive import (
    CiMethod,
    Percentiles,
    Summary,
    clip_to_range,
    percentiles,
    summarize,
    t_interval,
    wilson_interval,
)
from shared.stats.effect_size import cohens_d, cohens_dz
from shared.stats.errors import StatsInputError
from shared.stats.mcnemar import McNemarResult, mcnemar_exact
from shared.stats.multiple_testing import holm_adjust, holm_reject
from shared.stats.paired_comparison import PairedComparison, TestName, compare_paired
from shared.stats.paired_many import compare_paired_many
from shared.stats.sign_flip import EXACT_MAX_PAIRS, sign_flip_p_value
from shared.stats.time_buckets import BucketMean, bucketed_means

__all__ = [
    "DEFAULT_RESAMPLES",
    "EXACT_MAX_PAIRS",
    "BucketMean",
    "CiMethod",
    "FloatArray",
    "McNemarResult",
    "PairedArrays",
    "PairedBootstrapResult",
    "PairedComparison",
    "Percentiles",
    "StatsInputError",
    "Summary",
    "TestName",
    "Values",
    "bootstrap_means",
    "bucketed_means",
    "clip_to_range",
    "cohens_d",
    "cohens_dz",
    "compare_paired",
    "compare_paired_many",
    "drop_missing",
    "holm_adjust",
    "holm_reject",
    "is_binary",
    "mcnemar_exact",
    "pair_values",
    "paired_bootstrap",
    "percentile_interval",
    "percentiles",
    "sign_flip_p_value",
    "summarize",
    "t_interval",
    "wilson_interval",
]
