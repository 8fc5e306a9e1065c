"""The paired comparison of two finished experiments, computed from Postgres in bounded memory:
per-item columns plus one metric's values at a time."""

from __future__ import annotations

import asyncio

from sqlalchemy.ext.asyncio import AsyncSession

from services.coordinator.comparisons.store.failure_reasons import with_failure_reasons
from services.coordinator.comparisons.store.pairing import load_paired_columns, load_paired_metrics
from services.coordinator.experiments.store.interleaving import measured_interleaved
from services.coordinator.experiments.store.spend import recorded_spend
from shared.analysis import ComparisonBuilder, MetricSpecs, paired_keys, policy_for, stored_policy
from shared.db.models import Experiment
from shared.llm.prices import configured_prices
from yardstick.api.comparison_config import ComparisonConfig
from yardstick.api.comparison_report import ComparisonReport
from yardstick.api.evaluation import Evaluation


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
    # bootstraps: off the event loop, while PostgreSQL sums the runs' spend
    statistics = asyncio.ensure_future(asyncio.to_thread(builder.report))
    try:
        prices = configured_prices()
        baseline_spend = await recorded_spend(session, baseline.id, prices)
        candidate_spend = await recorded_spend(session, candidate.id, prices)
    finally:
        report = await statistics
    return report.model_copy(
        update={
            "latency_interleaved": measured_interleaved(baseline, candidate),
            "broken_items": await with_failure_reasons(session, candidate.id, report.broken_items),
            "fixed_items": await with_failure_reasons(session, baseline.id, report.fixed_items),
            "baseline_spend": baseline_spend,
            "candidate_spend": candidate_spend,
        }
    )
