"""Statistics for evaluation runs: summaries, paired tests, effect sizes, multiple testing (Holm,
Westfall-Young), power.

Pure NumPy / SciPy, vectorised; every function drops ``None`` / NaN and reports how many.
Agreement between raters (a judge against people's labels): ``binary_agreement``,
``ordinal_agreement``, ``categorical_agreement`` and ``compare_judges``; a judge's mean corrected by
people's labels (prediction-powered inference): ``prediction_powered_mean``.
"""

from shared.analysis.stats.agreement import Labels, binary_agreement, categorical_agreement, ordinal_agreement
from shared.analysis.stats.attainable import min_p_at_n, min_p_given, pairs_needed_for
from shared.analysis.stats.bootstrap import (
    DEFAULT_RESAMPLES,
    bootstrap_means,
    paired_bootstrap,
    percentile_interval,
)
from shared.analysis.stats.cleaning import (
    FloatArray,
    PairedArrays,
    Values,
    drop_missing,
    is_binary,
    pair_values,
)
from shared.analysis.stats.descriptive import (
    clip_to_range,
    percentiles,
    summarize,
    t_interval,
    wilson_interval,
)
from shared.analysis.stats.effect_size import cohens_d, cohens_dz
from shared.analysis.stats.errors import StatsInputError
from shared.analysis.stats.judge_comparison import compare_judges
from shared.analysis.stats.mcnemar import mcnemar_exact
from shared.analysis.stats.multiple_testing import holm_adjust, holm_reject, holm_tarone_adjust, tarone_size
from shared.analysis.stats.paired_comparison import compare_paired
from shared.analysis.stats.paired_many import compare_paired_groups, compare_paired_many
from shared.analysis.stats.power import (
    DEFAULT_POWER,
    mcnemar_power,
    mde_continuous,
    mde_pass_fail,
    pairs_for_continuous,
    pairs_for_pass_fail,
    planning_churn,
    planning_spread,
    sign_flip_power,
)
from shared.analysis.stats.prediction_powered import ppi_mean_interval, prediction_powered_mean
from shared.analysis.stats.sign_flip import EXACT_MAX_PAIRS, sign_flip_p_value
from shared.analysis.stats.time_buckets import bucketed_means
from shared.analysis.stats.westfall_young import WestfallYoungResult, westfall_young

__all__ = [
    "DEFAULT_POWER",
    "DEFAULT_RESAMPLES",
    "EXACT_MAX_PAIRS",
    "FloatArray",
    "Labels",
    "PairedArrays",
    "StatsInputError",
    "Values",
    "WestfallYoungResult",
    "binary_agreement",
    "bootstrap_means",
    "bucketed_means",
    "categorical_agreement",
    "clip_to_range",
    "cohens_d",
    "cohens_dz",
    "compare_judges",
    "compare_paired",
    "compare_paired_groups",
    "compare_paired_many",
    "drop_missing",
    "holm_adjust",
    "holm_reject",
    "holm_tarone_adjust",
    "is_binary",
    "mcnemar_exact",
    "mcnemar_power",
    "mde_continuous",
    "mde_pass_fail",
    "min_p_at_n",
    "min_p_given",
    "ordinal_agreement",
    "pair_values",
    "paired_bootstrap",
    "pairs_for_continuous",
    "pairs_for_pass_fail",
    "pairs_needed_for",
    "percentile_interval",
    "percentiles",
    "planning_churn",
    "planning_spread",
    "ppi_mean_interval",
    "prediction_powered_mean",
    "sign_flip_p_value",
    "sign_flip_power",
    "summarize",
    "t_interval",
    "tarone_size",
    "westfall_young",
    "wilson_interval",
]
