"""A finished experiment's aggregates and run-level scores, computed from Postgres in bounded
memory: per-item columns plus one metric's values at a time."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from services.coordinator.experiments.store.full_run import load_run
from services.coordinator.experiments.store.run_columns import load_metrics, load_run_columns
from shared.analysis import (
    DEFAULT_BREAKDOWN_KEYS,
    AggregateBuilder,
    PassPolicy,
    RunLevelEvaluation,
    metadata_keys,
)
from shared.db.models import Experiment
from shared.evaluators import EvaluatorRegistry
from shared.evaluators.item_results import ItemResult
from shared.evaluators.loading import process_registry
from yardstick.api.evaluation import EvaluatorSpec
from yardstick.api.experiment_config import DEFAULT_MAX_ERROR_RATE
from yardstick.api.gates import Gate
from yardstick.api.run_aggregates import ExperimentAggregates


async def analyse_experiment(
    session: AsyncSession,
    experiment: Experiment,
    run_evaluators: Sequence[EvaluatorSpec],
    policy: PassPolicy | None = None,
    breakdown_keys: Sequence[str] = DEFAULT_BREAKDOWN_KEYS,
    max_error_rate: float = DEFAULT_MAX_ERROR_RATE,
    gates: Sequence[Gate] = (),
    registry: EvaluatorRegistry | None = None,
) -> ExperimentAggregates:
    """Run the run-level evaluators and aggregate; ``aggregates.run_scores`` holds their results."""
    keys = list(dict.fromkeys([*breakdown_keys, *sorted(metadata_keys(run_evaluators))]))
    columns = await load_run_columns(session, experiment, keys)
    run_level = RunLevelEvaluation(registry or process_registry(), run_evaluators, columns)
    builder = AggregateBuilder(columns, policy, breakdown_keys, max_error_rate, gates)
    all_values = await load_metrics(session, experiment.id, columns.metric_names, columns.size)
    for name in columns.metric_names:
        values = all_values.pop(name)
        builder.add_metric(name, values)
        run_level.add_metric(name, values)

    async def full_results() -> list[ItemResult]:
        return (await load_run(session, experiment))[1]

    columns.run_scores = await run_level.results(full_results)
    return builder.finish()
