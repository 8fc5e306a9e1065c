"""Status changes checked against the transition table; cancellation, the finalizer's claim and
verdict, deletion."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from sqlalchemy import ColumnElement
from sqlalchemy.ext.asyncio import AsyncSession

from services.coordinator.errors import (
    DeletionRefused,
    ExperimentNotCancellable,
    IllegalTransition,
)
from services.coordinator.experiments.store import experiments as rows
from services.coordinator.experiments.store.experiments import delete_experiment_rows
from services.coordinator.experiments.store.output_cache import store_outputs
from shared.db.base import utcnow
from shared.db.models import Experiment
from yardstick.api.experiment_status import TRANSITIONS, ExperimentStatus
from yardstick.api.run_aggregates import ExperimentAggregates

# ---- status changes -------------------------------------------------------------------------


def either(statuses: Collection[ExperimentStatus]) -> str:
    """The statuses as a reader says them, in the enum's order: "running, finalizing or failed"."""
    names = [s.value for s in ExperimentStatus if s in statuses]
    return " or ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)


def refusal(experiment_id: str, current: ExperimentStatus, target: ExperimentStatus) -> str:
    """The sentence an illegal change answers with."""
    allowed = TRANSITIONS[current]
    if not allowed:
        return f"experiment {experiment_id!r} is {current}, which is final: it cannot become {target}"
    return f"experiment {experiment_id!r} is {current}: it can become {either(allowed)}, not {target}"


def change(experiment: Experiment, target: ExperimentStatus) -> None:
    """Change the status of a row this session holds (it is written on commit), or raise
    :class:`IllegalTransition`."""
    current = ExperimentStatus(experiment.status)
    if not current.can_become(target):
        raise IllegalTransition(refusal(experiment.id, current, target))
    experiment.status = target
    if target.terminal:
        experiment.completed_at = utcnow()


async def transition(
    session: AsyncSession,
    experiment_id: str,
    target: ExperimentStatus,
    *,
    also_from: Sequence[ExperimentStatus] = (),
    only_if: Sequence[ColumnElement[bool]] = (),
    **values: Any,
) -> bool:
    """Change the stored status to ``target`` if the table allows it from the stored one (or it is
    one of ``also_from``: a claim taken again); True if it changed. The caller commits."""
    if target.terminal:
        values.setdefault("completed_at", utcnow())
    where = ExperimentStatus.sources(target) | set(also_from)
    return await rows.set_status(session, experiment_id, target, where=where, only_if=only_if, **values)


# ---- cancellation, finalization, deletion ---------------------------------------------------


async def cancel_experiment(session: AsyncSession, experiment_id: str) -> Experiment:
    """Mark the experiment cancelled (404 if unknown, 409 if it cannot be; cancelling twice is
    harmless); commits. With the output cache on, the outputs stored by then are cached, so a rerun
    calls the target only for the rest (tasks still running are not cached)."""
    experiment = await rows.get_experiment(session, experiment_id)
    await transition(session, experiment_id, ExperimentStatus.CANCELLED, error="cancelled on request")
    await session.commit()
    await session.refresh(experiment)
    if experiment.status != ExperimentStatus.CANCELLED:
        sources = either(ExperimentStatus.sources(ExperimentStatus.CANCELLED))
        raise ExperimentNotCancellable(
            f"experiment {experiment_id!r} is {experiment.status}: only a {sources} experiment can be "
            "cancelled"
        )
    if await store_outputs(session, experiment_id, experiment.config):
        await session.commit()
    return experiment


def _all_items_done() -> list[ColumnElement[bool]]:
    return [Experiment.done >= Experiment.total]


async def awaiting_finalization(session: AsyncSession) -> list[str]:
    """Experiments whose items are all terminal and that are not finalized yet (after a restart)."""
    claimable = ExperimentStatus.sources(ExperimentStatus.FINALIZING) | {ExperimentStatus.FINALIZING}
    return await rows.experiment_ids(session, claimable, only_if=_all_items_done())


async def claim_for_finalizing(session: AsyncSession, experiment_id: str) -> Experiment | None:
    """Mark the experiment finalizing if all its items are terminal (again, if a finalizer stopped
    while it was: finalizing is idempotent); commits. None if it is not this finalizer's to finish."""
    claimed = await transition(
        session,
        experiment_id,
        ExperimentStatus.FINALIZING,
        also_from=[ExperimentStatus.FINALIZING],
        only_if=_all_items_done(),
    )
    await session.commit()
    return await session.get(Experiment, experiment_id) if claimed else None


def complete(experiment: Experiment, aggregates: ExperimentAggregates) -> ExperimentStatus:
    """The finalizer's verdict on a claimed experiment: its aggregates, and completed, or
    budget_exhausted when its budget stopped the dispatching. Returns the new status."""
    final = (
        ExperimentStatus.BUDGET_EXHAUSTED
        if experiment.budget_exhausted_at is not None
        else ExperimentStatus.COMPLETED
    )
    change(experiment, final)
    experiment.aggregates = aggregates
    return final


async def fail_finalization(session: AsyncSession, experiment_id: str, exc: Exception) -> bool:
    """Mark the experiment failed with the finalizer's error, unless it is already final; commits."""
    changed = await transition(
        session,
        experiment_id,
        ExperimentStatus.FAILED,
        error=f"finalization failed: {type(exc).__name__}: {exc}",
    )
    await session.commit()
    return changed


async def delete_experiment(session: AsyncSession, experiment_id: str) -> None:
    """Delete a final experiment (409 while it is active); the caller commits."""
    experiment = await rows.get_experiment(session, experiment_id)
    status = ExperimentStatus(experiment.status)
    if status.active:
        then = (
            f"cancel it first (`yardstick cancel {experiment_id}`)"
            if status.cancellable
            else "wait until it has finished"
        )
        raise DeletionRefused(f"experiment {experiment_id} is {status}: {then}, then delete it")
    await delete_experiment_rows(session, experiment_id)
