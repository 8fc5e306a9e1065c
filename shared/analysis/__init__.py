"""The analysis of finished runs, pure (no I/O): what the coordinator, the CLI and the UI share.

- ``run_data``: an in-memory run (``RunData``, ``ScoredItem``, ``ItemKey``);
- ``columns`` / ``paired_columns``: a run (or two runs paired by item and trial) as compact
  per-item NumPy columns, a metric's values fetched one at a time (the coordinator's store fills
  them from Postgres in bounded memory);
- ``pass_rule``: the one rule for "passed";
- ``aggregates``: per-metric summaries, breakdowns, pass rate (``AggregateBuilder``);
- ``run_level``: run-level evaluators over the columns;
- ``metric_specs``: what each metric of an experiment means (direction, pass, regression);
- ``comparison``: baseline vs candidate (its report model: ``yardstick.api.comparison_report``).
"""

from shared.analysis.aggregates import AggregateBuilder
from shared.analysis.columns import RunColumns, columns_from_items
from shared.analysis.comparison import ComparisonBuilder, compare_runs
from shared.analysis.errors import ComparisonError
from shared.analysis.metric_specs import MetricSpecs
from shared.analysis.paired_columns import PairedColumns, pair_runs
from shared.analysis.pass_rule import Outcome, PassPolicy, item_passed, policy_for
from shared.analysis.run_level import RunLevelEvaluation

__all__ = [
    "AggregateBuilder",
    "ComparisonBuilder",
    "ComparisonError",
    "MetricSpecs",
    "Outcome",
    "PairedColumns",
    "PassPolicy",
    "RunColumns",
    "RunLevelEvaluation",
    "columns_from_items",
    "compare_runs",
    "item_passed",
    "pair_runs",
    "policy_for",
]
