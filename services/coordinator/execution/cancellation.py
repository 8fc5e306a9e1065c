"""Cancelling an experiment: nothing more is dispatched for it and it is never finalized.

Tasks already handed to the eval workers (at most the experiment's concurrency) still run and
their results are stored, so the items page shows everything that was scored; a cancelled
experiment has no aggregates. Cancelling twice is harmless; a finished one cannot be cancelled.
With the output cache on, the outputs stored by the time it is cancelled are cached, so running it
again calls the target only for the rest (tasks still running then are not cached).
"""

from __future__ import annotations

from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession

from services.coordinator.errors import ExperimentNotCancellable
from services.coordinator.store.experiments import get_experiment
from services.coordinator.store.output_cache import store_outputs
from shared.db.base import utcnow
from shared.db.models import Experiment

CANCELLABLE = ("pending", "running")


async def cancel_experiment(session: AsyncSession, experiment_id: str) -> Experiment:
    """Mark the experiment cancelled (404 if unknown, 409 if it already finished); commits."""
    experiment = await get_experiment(session, experiment_id)
    await session.execute(
        update(Experiment)
        .where(Experiment.id == experiment_id, Experiment.status.in_(CANCELLABLE))
        .values(status="cancelled", error="cancelled on request", completed_at=utcnow())
    )
    await session.commit()
    await session.refresh(experiment)
    if experiment.status != "cancelled":
        raise ExperimentNotCancellable(
            f"experiment {experiment_id!r} is {experiment.status}: only a pending or running "
            "experiment can be cancelled"
        )
    if await store_outputs(session, experiment_id, experiment.config):  # a rerun picks them up
        await session.commit()
    return experiment
