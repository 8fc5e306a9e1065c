"""Comparing two completed experiments and storing the result (the API's POST /comparisons and
the web UI's "Compare" button both come here)."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from services.coordinator.comparisons.analysis import compare_experiments
from services.coordinator.errors import ExperimentNotComplete, InvalidComparison
from services.coordinator.experiments.store import experiments as experiment_store
from shared.analysis import ComparisonError
from shared.db.models import Comparison, Experiment
from yardstick.api.comparison_config import ComparisonConfig
from yardstick.api.experiment_status import ExperimentStatus
from yardstick.api.pairwise import PairwiseJudgeSpec, PairwiseJudging


async def completed_experiment(session: AsyncSession, experiment_id: str) -> Experiment:
    experiment = await experiment_store.get_experiment(session, experiment_id)
    if not ExperimentStatus(experiment.status).aggregated:
        raise ExperimentNotComplete(
            f"experiment {experiment_id} is {experiment.status}; wait until it completes"
        )
    return experiment


async def create_comparison(
    session: AsyncSession,
    baseline_id: str,
    candidate_id: str,
    config: ComparisonConfig,
    judge: PairwiseJudgeSpec | None = None,
) -> Comparison:
    """Compare, streaming both runs' scores from Postgres one metric at a time (memory bounded like
    the finalizer's); the row is added to the session, the caller commits. With ``judge``, the row
    says ``judging`` and the caller hands it to the coordinator's
    :class:`~services.coordinator.comparisons.pairwise_jobs.PairwiseJobs` after committing."""
    baseline = await completed_experiment(session, baseline_id)
    candidate = await completed_experiment(session, candidate_id)
    try:
        report = await compare_experiments(session, baseline, candidate, config)
    except ComparisonError as exc:
        raise InvalidComparison(str(exc)) from exc
    report = report.model_copy(
        update={
            "baseline_code": await experiment_store.code_fingerprints(session, baseline.id),
            "candidate_code": await experiment_store.code_fingerprints(session, candidate.id),
        }
    )
    row = Comparison(
        baseline_id=baseline.id,
        candidate_id=candidate.id,
        config=config,
        report=report,
        regression=report.regression,
        judging=None if judge is None else PairwiseJudging(judge=judge),
    )
    session.add(row)
    return row
