"""The dispatcher's queries: running experiments, rows to read ahead, rows to mark dispatched, and
the in-flight rows it must reconcile with what Postgres holds."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime

from sqlalchemy import func, select, tuple_, update
from sqlalchemy.ext.asyncio import AsyncSession

from shared.db.base import utcnow
from shared.db.models import Experiment, ExperimentItem
from yardstick.api.experiment_status import ExperimentStatus
from yardstick.api.item_failure import ItemFailure

TERMINAL = ("ok", "error")


async def running_experiments(session: AsyncSession) -> Sequence[Experiment]:
    stmt = (
        select(Experiment)
        .where(Experiment.status == ExperimentStatus.RUNNING)
        .order_by(Experiment.started_at)
    )
    return (await session.execute(stmt)).scalars().all()


async def dispatched_rows(session: AsyncSession, experiment_id: str) -> list[tuple[str, int, int]]:
    """(item_id, trial, row id) of every task handed out and not answered yet."""
    stmt = select(ExperimentItem.item_id, ExperimentItem.trial, ExperimentItem.id).where(
        ExperimentItem.experiment_id == experiment_id, ExperimentItem.status == "dispatched"
    )
    return [(item_id, trial, row_id) for item_id, trial, row_id in (await session.execute(stmt)).all()]


async def pending_after(
    session: AsyncSession, experiment_id: str, cursor: tuple[int, int, int] | None, limit: int
) -> Sequence[ExperimentItem]:
    """The next ``limit`` pending rows in item order after ``cursor`` (position, trial, id)."""
    order = (ExperimentItem.position, ExperimentItem.trial, ExperimentItem.id)
    stmt = select(ExperimentItem).where(
        ExperimentItem.experiment_id == experiment_id, ExperimentItem.status == "pending"
    )
    if cursor is not None:
        stmt = stmt.where(tuple_(*order) > tuple_(*cursor))
    return (await session.execute(stmt.order_by(*order).limit(limit))).scalars().all()


async def mark_dispatched(session: AsyncSession, row_ids: Sequence[int]) -> None:
    """Published rows become ``dispatched``; one whose result is already stored stays terminal."""
    await session.execute(
        update(ExperimentItem)
        .where(ExperimentItem.id.in_(row_ids), ExperimentItem.status == "pending")
        .values(status="dispatched", dispatched_at=utcnow())
        # no ORM objects of these rows live in the session: skip matching them (CPU per batch)
        .execution_options(synchronize_session=False)
    )


async def terminal_ids(session: AsyncSession, row_ids: Sequence[int]) -> set[int]:
    stmt = select(ExperimentItem.id).where(
        ExperimentItem.id.in_(row_ids), ExperimentItem.status.in_(TERMINAL)
    )
    return set((await session.execute(stmt)).scalars().all())


async def stale_rows(
    session: AsyncSession, experiment_id: str, cutoff: datetime, limit: int = 100
) -> Sequence[ExperimentItem]:
    """Rows dispatched before ``cutoff`` and still without a result."""
    stmt = (
        select(ExperimentItem)
        .where(
            ExperimentItem.experiment_id == experiment_id,
            ExperimentItem.status == "dispatched",
            ExperimentItem.dispatched_at < cutoff,
        )
        .limit(limit)
    )
    return (await session.execute(stmt)).scalars().all()


async def stop_for_budget(
    session: AsyncSession, experiment_id: str, reason: str, keep: Collection[int] = ()
) -> int:
    """The budget is spent: every pending row becomes an error ``reason`` (counted done), and the
    experiment is stamped ``budget_exhausted_at``; once its in-flight tasks return it is finalized.
    Rows in ``keep`` (published, or being published, but not yet marked ``dispatched``) are left to
    finish: they run, so they are not "not run". Idempotent (a second call finds nothing pending).
    Returns the rows stopped; the caller commits."""
    pending = [ExperimentItem.experiment_id == experiment_id, ExperimentItem.status == "pending"]
    if keep:
        pending.append(ExperimentItem.id.not_in(list(keep)))
    stopped = (
        await session.execute(
            update(ExperimentItem)
            .where(*pending)
            .values(
                status="error",
                error=reason,
                failure=ItemFailure.from_summary(reason, "platform"),
                finished_at=utcnow(),
            )
            .returning(ExperimentItem.id)
        )
    ).all()
    await session.execute(
        update(Experiment)
        .where(Experiment.id == experiment_id, Experiment.status == ExperimentStatus.RUNNING)
        .values(
            done=Experiment.done + len(stopped),
            errors=Experiment.errors + len(stopped),
            budget_exhausted_at=func.coalesce(Experiment.budget_exhausted_at, utcnow()),
            error=func.coalesce(Experiment.error, reason),
        )
    )
    return len(stopped)
