"""Aggregates of an in-memory run: the reference the tests hold the Postgres-fed path to."""

from __future__ import annotations

from collections.abc import Sequence

from shared.analysis.aggregates import DEFAULT_BREAKDOWN_KEYS, AggregateBuilder, ExperimentAggregates
from shared.analysis.columns import columns_from_items, item_metric_values
from shared.analysis.run_data import RunData


def compute_aggregates(
    run: RunData, pass_threshold: float = 0.5, breakdown_keys: Sequence[str] = DEFAULT_BREAKDOWN_KEYS
) -> ExperimentAggregates:
    columns = columns_from_items(run.experiment_id, run.name, run.items, breakdown_keys, run.run_scores)
    builder = AggregateBuilder(columns, pass_threshold, breakdown_keys)
    values = item_metric_values(run.items)
    for name in columns.metric_names:
        builder.add_metric(name, values(name))
    return builder.finish()
