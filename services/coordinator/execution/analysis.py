"""Aggregates, run-level scores and baseline comparisons of finished experiments, computed from
Postgres in bounded memory: per-item columns plus one metric's values at a time."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from services.coordinator.store.failure_reasons import with_failure_reasons
from services.coordinator.store.full_run import load_run
from services.coordinator.store.interleaving import measured_interleaved
from services.coordinator.store.paired_columns import load_paired_columns, load_paired_metrics
from services.coordinator.store.run_columns import load_metrics, load_run_columns
from services.coordinator.store.spend import recorded_spend
from shared.analysis.aggregates import DEFAULT_BREAKDOWN_KEYS, AggregateBuilder
from shared.analysis.comparison import ComparisonBuilder, paired_keys
from shared.analysis.metric_specs import MetricSpecs
from shared.analysis.pass_rule import PassPolicy, policy_for, stored_policy
from shared.analysis.run_level import RunLevelEvaluation, metadata_keys
from shared.contracts.comparison_config import ComparisonConfig
from shared.contracts.comparison_report import ComparisonReport
from shared.contracts.evaluation import Evaluation, EvaluatorSpec
from shared.contracts.experiment_config import DEFAULT_MAX_ERROR_RATE
from shared.contracts.gates import Gate
from shared.contracts.run_aggregates import ExperimentAggregates
from shared.db.models import Experiment
from shared.evaluators import EvaluatorRegistry
from shared.evaluators.item_results import ItemResult
from shared.evaluators.loading import process_registry
from shared.llm.prices import configured_prices


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


def run_specs(experiment: Experiment) -> MetricSpecs:
    """What an experiment's metrics mean: its config's specs and overrides; a run recorded before
    specs existed is read through the criteria its aggregates stored."""
    if experiment.config.metric_specs or experiment.aggregates is None:
        return policy_for(experiment.config)
    return stored_policy(experiment.aggregates)


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
    paired = await load_paired_columns(session, baseline, candidate, paired_keys(config))
    if candidate_run_scores is not None:
        paired.candidate.run_scores = candidate_run_scores
    builder = ComparisonBuilder(paired, config, run_specs(candidate), run_specs(baseline))
    metrics = builder.score_metrics
    values = await load_paired_metrics(session, baseline.id, candidate.id, metrics, paired.n_pairs)
    for metric in metrics:
        builder.add_metric(metric, *values[metric])
    report = await asyncio.to_thread(builder.report)  # bootstraps: off the event loop
    prices = configured_prices()
    return report.model_copy(
        update={
            "latency_interleaved": measured_interleaved(baseline, candidate),
            "broken_items": await with_failure_reasons(session, candidate.id, report.broken_items),
            "fixed_items": await with_failure_reasons(session, baseline.id, report.fixed_items),
            "baseline_spend": await recorded_spend(session, baseline.id, prices),
            "candidate_spend": await recorded_spend(session, candidate.id, prices),
        }
    )
