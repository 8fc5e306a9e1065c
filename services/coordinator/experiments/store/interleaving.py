"""Interleaved runs (``interleave``): a candidate and a new run of its baseline's configuration,
dispatched in the same minutes. The candidate is finalized, and compared, only once that baseline
has finished; when it finishes, the candidates waiting for it are resubmitted."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from shared.db.models import Experiment
from yardstick.api.experiment_status import TERMINAL_STATUSES


async def waits_for_twin(session: AsyncSession, experiment_id: str) -> bool:
    """The experiment is interleaved and its baseline is still running."""
    experiment = await session.get(Experiment, experiment_id)
    if experiment is None or not experiment.config.interleave or not experiment.baseline_id:
        return False
    baseline = await session.get(Experiment, experiment.baseline_id)
    return baseline is not None and baseline.status not in {s.value for s in TERMINAL_STATUSES}


async def interleaved_dependents(session: AsyncSession, baseline_id: str) -> list[str]:
    """Unfinished experiments interleaved with ``baseline_id`` (they wait for it)."""
    rows = await session.execute(
        select(Experiment.id, Experiment.config).where(
            Experiment.baseline_id == baseline_id,
            Experiment.status.not_in([s.value for s in TERMINAL_STATUSES]),
        )
    )
    return [experiment_id for experiment_id, config in rows if config.interleave]


def measured_interleaved(baseline: Experiment, candidate: Experiment) -> bool:
    """Whether the candidate ran interleaved with this baseline (their latencies compare fairly)."""
    return bool(candidate.config.interleave and candidate.baseline_id == baseline.id)
