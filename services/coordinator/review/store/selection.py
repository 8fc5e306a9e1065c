"""Which items a new review queue holds: its source's filter, then a seeded random sample.

The same source and seed select the same items (the sample is drawn with NumPy's generator over
the candidates in a stable order), so a queue can be made again and reviewed the same way."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sqlalchemy import select, tuple_
from sqlalchemy.ext.asyncio import AsyncSession

from services.coordinator.errors import CoordinatorError
from services.coordinator.experiments.store.experiments import get_experiment
from services.coordinator.experiments.store.items import fails
from services.coordinator.review.store.trace_selection import trace_candidates
from shared.analysis import policy_for
from shared.db.models import ExperimentItem, Score
from yardstick.api.review import MAX_QUEUE_ITEMS, ExperimentItemsSource, ReviewSource, TracesSource


class EmptyQueue(CoordinatorError):
    """The source selects no item: nothing to review."""

    status_code = 422


@dataclass(frozen=True)
class Selected:
    """One item to review: an experiment's (item, trial) or a sampled trace."""

    experiment_id: str | None = None
    item_id: str | None = None
    trial: int | None = None
    trace_pk: int | None = None


def _sample(candidates: list[Selected], n: int | None, seed: int) -> list[Selected]:
    if n is None or n >= len(candidates):
        return candidates[:MAX_QUEUE_ITEMS]
    picked = np.random.default_rng(seed).choice(len(candidates), size=n, replace=False)
    return [candidates[i] for i in sorted(picked.tolist())]


async def _experiment_items(session: AsyncSession, source: ExperimentItemsSource) -> list[Selected]:
    experiment = await get_experiment(session, source.experiment_id)  # 404 outside the project
    stmt = select(ExperimentItem.item_id, ExperimentItem.trial).where(
        ExperimentItem.experiment_id == experiment.id, ExperimentItem.status == "ok"
    )
    if source.category:
        stmt = stmt.where(ExperimentItem.item_metadata["category"].astext == source.category)
    if source.failing:
        failing_keys = select(Score.item_id, Score.trial).where(
            Score.experiment_id == experiment.id,
            Score.name == source.failing,
            fails(policy_for(experiment.config).criterion(source.failing), Score.value),
        )
        stmt = stmt.where(tuple_(ExperimentItem.item_id, ExperimentItem.trial).in_(failing_keys))
    rows = await session.execute(stmt.order_by(ExperimentItem.position, ExperimentItem.trial))
    return [Selected(experiment_id=experiment.id, item_id=i, trial=t) for i, t in rows.all()]


async def source_candidates(session: AsyncSession, source: ReviewSource) -> list[Selected]:
    """Every item ``source``'s filter selects now, before its sample: the population a queue is drawn
    from, in a stable order."""
    if isinstance(source, TracesSource):
        return [Selected(trace_pk=pk) for pk in await trace_candidates(session, source)]
    return await _experiment_items(session, source)


async def select_items(session: AsyncSession, source: ReviewSource) -> list[Selected]:
    """The items ``source`` selects now (at most ``MAX_QUEUE_ITEMS``); 422 when there are none."""
    picked = _sample(await source_candidates(session, source), source.sample, source.seed)
    if not picked:
        raise EmptyQueue(
            "the source selects no item to review: widen the filter (an experiment's ok items, or "
            "sampled traces in the window)"
        )
    return picked
