"""The numbers of Yardstick, pure (no I/O, no database, no service): statistics, the analysis of
finished runs and the reports rendered from it. Everything outside this package imports from this
face (``from shared.analysis import ...``); the modules behind it are free to move.

- ``stats/``: summaries, paired tests, effect sizes, multiple testing (Holm, Holm-Tarone,
  Westfall-Young), power, agreement between raters, prediction-powered means (NumPy / SciPy);
- ``run_data``, ``columns``, ``paired_columns``: a run (or two runs paired by item and trial) in
  memory or as compact per-item NumPy columns (the coordinator's store fills them from PostgreSQL);
- ``pass_rule``: the one rule for "passed"; ``metric_specs``: what each metric means;
- ``aggregates``, ``run_level``: one run's summaries and run-level evaluators;
- ``comparison`` (with ``comparison_specs``, ``metric_verdict``, ``broken_items``, ``verdict_line``):
  baseline vs candidate and its verdict; ``pairwise``: judged comparisons;
- ``planning``, ``detectability``: how many items a change needs, what a run can detect;
- ``calibration``, ``human_scale``: a judge against people's labels;
- ``reports/``: markdown, JUnit XML and the versioned JSON export.
"""

from shared.analysis.aggregates import DEFAULT_BREAKDOWN_KEYS, AggregateBuilder
from shared.analysis.broken_items import first_reason, with_reasons
from shared.analysis.calibration import CalibrationItem, Population, calibrate
from shared.analysis.columns import (
    ABSENT,
    NULL,
    GroupCoder,
    GroupColumn,
    RunColumns,
    UsageTotals,
    columns_from_items,
)
from shared.analysis.comparison import ComparisonBuilder, ComparisonConfig, compare_runs, paired_keys
from shared.analysis.detectability import describe_mde
from shared.analysis.errors import ComparisonError
from shared.analysis.metric_specs import ERROR_RATE_METRIC, LATENCY_METRIC, MetricSpecs
from shared.analysis.paired_columns import PairedColumns, RunSide, pair_runs
from shared.analysis.pairwise import pairwise_result
from shared.analysis.pass_rule import Outcome, PassPolicy, item_passed, policy_for, stored_policy
from shared.analysis.planning import PlanningError, plan_for, planned_and_measured
from shared.analysis.reports import (
    comparison_junit,
    comparison_markdown,
    experiment_json,
    experiment_junit,
    experiment_markdown,
)
from shared.analysis.reports.code_fingerprints import code_header, mixed_code_warnings
from shared.analysis.reports.item_changes_markdown import change_row, latency_note
from shared.analysis.reports.markdown import direction_arrow, fmt_mde
from shared.analysis.reports.pairwise_markdown import pairwise_lines
from shared.analysis.run_level import (
    SCORE_BREAKDOWN_KEYS,
    ColumnarFactory,
    RunLevelEvaluation,
    evaluate_items,
    metadata_keys,
)
from shared.analysis.stats import (
    FloatArray,
    bucketed_means,
    holm_adjust,
    holm_tarone_adjust,
    mcnemar_exact,
    min_p_given,
    pair_values,
    prediction_powered_mean,
    sign_flip_p_value,
    summarize,
    westfall_young,
)
from shared.analysis.stats.descriptive import wilson_bounds
from shared.analysis.stats.power import DEFAULT_POWER
from shared.analysis.stats.sign_flip import EXACT_MAX_PAIRS, monte_carlo_sign_flip_p_value

__all__ = [
    "ABSENT",
    "DEFAULT_BREAKDOWN_KEYS",
    "DEFAULT_POWER",
    "ERROR_RATE_METRIC",
    "EXACT_MAX_PAIRS",
    "LATENCY_METRIC",
    "NULL",
    "SCORE_BREAKDOWN_KEYS",
    "AggregateBuilder",
    "CalibrationItem",
    "ColumnarFactory",
    "ComparisonBuilder",
    "ComparisonConfig",
    "ComparisonError",
    "FloatArray",
    "GroupCoder",
    "GroupColumn",
    "MetricSpecs",
    "Outcome",
    "PairedColumns",
    "PassPolicy",
    "PlanningError",
    "Population",
    "RunColumns",
    "RunLevelEvaluation",
    "RunSide",
    "UsageTotals",
    "bucketed_means",
    "calibrate",
    "change_row",
    "code_header",
    "columns_from_items",
    "compare_runs",
    "comparison_junit",
    "comparison_markdown",
    "describe_mde",
    "direction_arrow",
    "evaluate_items",
    "experiment_json",
    "experiment_junit",
    "experiment_markdown",
    "first_reason",
    "fmt_mde",
    "holm_adjust",
    "holm_tarone_adjust",
    "item_passed",
    "latency_note",
    "mcnemar_exact",
    "metadata_keys",
    "min_p_given",
    "mixed_code_warnings",
    "monte_carlo_sign_flip_p_value",
    "pair_runs",
    "pair_values",
    "paired_keys",
    "pairwise_lines",
    "pairwise_result",
    "plan_for",
    "planned_and_measured",
    "policy_for",
    "prediction_powered_mean",
    "sign_flip_p_value",
    "stored_policy",
    "summarize",
    "westfall_young",
    "wilson_bounds",
    "with_reasons",
]
