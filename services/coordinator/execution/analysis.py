"""Aggregates, run-level scores and baseline comparisons of finished experiments, computed from
Postgres in bounded memory: per-item columns plus one metric's values at a time."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from services.coordinator.store.full_run import load_run
from services.coordinator.store.paired_columns import load_paired_columns, load_paired_metrics
from services.coordinator.store.run_columns import load_metrics, load_run_columns
from shared.analysis.aggregates import DEFAULT_BREAKDOWN_KEYS, AggregateBuilder, ExperimentAggregates
from shared.analysis.comparison import ComparisonBuilder
from shared.analysis.comparison_models import ComparisonReport
from shared.analysis.comparison_rules import ComparisonConfig
from shared.analysis.pass_rule import PassPolicy
from shared.analysis.run_level import RunLevelEvaluation, metadata_keys
from shared.contracts.evaluation import Evaluation, EvaluatorSpec
from shared.contracts.experiment_config import DEFAULT_MAX_ERROR_RATE
from shared.contracts.gates import Gate
from shared.db.models import Experiment
from shared.evaluators.item_results import ItemResult


async def analyse_experiment(
    session: AsyncSession,
    experiment: Experiment,
    run_evaluators: Sequence[EvaluatorSpec],
    policy: PassPolicy | None = None,
    breakdown_keys: Sequence[str] = DEFAULT_BREAKDOWN_KEYS,
    max_error_rate: float = DEFAULT_MAX_ERROR_RATE,
    gates: Sequence[Gate] = (),
) -> ExperimentAggregates:
    """Run the run-level evaluators and aggregate; ``aggregates.run_scores`` holds their results."""
    keys = list(dict.fromkeys([*breakdown_keys, *sorted(metadata_keys(run_evaluators))]))
    columns = await load_run_columns(session, experiment, keys)
    run_level = RunLevelEvaluation(run_evaluators, columns)
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


async def compare_experiments(
    session: AsyncSession,
    baseline: Experiment,
    candidate: Experiment,
    config: ComparisonConfig,
    candidate_run_scores: list[Evaluation] | None = None,
) -> ComparisonReport:
    """Paired comparison of two finished experiments (``regression`` has the rules). Run scores
    come from their stored aggregates unless ``candidate_run_scores`` are given (at finalization).
    Raises ``ComparisonError`` for a config that does not fit the two runs."""
    paired = await load_paired_columns(session, baseline, candidate, config.breakdown_keys)
    if candidate_run_scores is not None:
        paired.candidate.run_scores = candidate_run_scores
    builder = ComparisonBuilder(paired, config)
    metrics = builder.score_metrics
    values = await load_paired_metrics(session, baseline.id, candidate.id, metrics, paired.n_pairs)
    for metric in metrics:
        builder.add_metric(metric, *values[metric])
    return await asyncio.to_thread(builder.report)  # bootstraps: off the event loop
