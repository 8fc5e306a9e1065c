"""Aggregates of an in-memory run: the reference the tests hold the Postgres-fed path to."""

from __future__ import annotations

from collections.abc import Sequence

from shared.analysis.aggregates import DEFAULT_BREAKDOWN_KEYS, AggregateBuilder
from shared.analysis.columns import columns_from_items, item_metric_values
from shared.analysis.pass_rule import PassPolicy
from yardstick.api.experiment_config import DEFAULT_MAX_ERROR_RATE
from yardstick.api.gates import Gate
from yardstick.api.run_aggregates import ExperimentAggregates
from yardstick.api.run_data import RunData


def compute_aggregates(
    run: RunData,
    policy: PassPolicy | float | None = None,
    breakdown_keys: Sequence[str] = DEFAULT_BREAKDOWN_KEYS,
    max_error_rate: float = DEFAULT_MAX_ERROR_RATE,
    gates: Sequence[Gate] = (),
) -> ExperimentAggregates:
    """``policy`` may be a bare pass threshold (the default policy at that threshold)."""
    if isinstance(policy, float | int):
        policy = PassPolicy(float(policy))
    columns = columns_from_items(run.experiment_id, run.name, run.items, breakdown_keys, run.run_scores)
    builder = AggregateBuilder(columns, policy, breakdown_keys, max_error_rate, gates)
    values = item_metric_values(run.items)
    for name in columns.metric_names:
        builder.add_metric(name, values(name))
    return builder.finish()
