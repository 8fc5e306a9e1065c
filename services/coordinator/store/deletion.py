"""Deleting what users made: experiments (``execution.lifecycle.delete_experiment`` decides when),
comparisons, datasets (not while an experiment uses them). Rows that belong to the deleted one go with
it (``ON DELETE CASCADE``); an experiment that named the deleted one as its baseline keeps its scores
and loses the link."""

from __future__ import annotations

from sqlalchemy import delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from services.coordinator.errors import ComparisonNotFound, DeletionRefused
from services.coordinator.store.datasets import get_dataset
from shared.db.models import Comparison, Dataset, Experiment


async def delete_experiment_rows(session: AsyncSession, experiment_id: str) -> None:
    await session.execute(
        update(Experiment).where(Experiment.baseline_id == experiment_id).values(baseline_id=None)
    )
    await session.execute(delete(Experiment).where(Experiment.id == experiment_id))


async def delete_comparison(session: AsyncSession, comparison_id: str) -> None:
    result = await session.execute(delete(Comparison).where(Comparison.id == comparison_id))
    if not result.rowcount:  # type: ignore[attr-defined]
        raise ComparisonNotFound(f"comparison {comparison_id!r} not found")


async def delete_dataset(session: AsyncSession, name: str) -> None:
    dataset = await get_dataset(session, name)
    used = int(
        (await session.execute(select(func.count()).where(Experiment.dataset_id == dataset.id))).scalar_one()
    )
    if used:
        raise DeletionRefused(
            f"dataset {name!r} is used by {used} experiment(s): delete them first "
            f"(`yardstick experiments list --dataset {name}`)"
        )
    await session.execute(delete(Dataset).where(Dataset.id == dataset.id))
