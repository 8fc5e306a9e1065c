"""What a calibration report reads: a queue's labelled items with each reviewer's answer for one
field and the evaluators' scores of the same items, and the metric specs that say how a score
reads as an answer (the experiment's resolved specs; for traffic, the sampling config's)."""

from __future__ import annotations

from collections import defaultdict

from sqlalchemy import select, tuple_
from sqlalchemy.ext.asyncio import AsyncSession

from services.coordinator.store.experiments import get_experiment
from shared.analysis.calibration import CalibrationItem
from shared.analysis.metric_specs import MetricSpecs
from shared.analysis.pass_rule import policy_for
from shared.contracts.review import HUMAN_METRIC_PREFIX, ExperimentItemsSource
from shared.db.models import OnlineScore, Score
from shared.db.project_scope import session_project
from shared.db.review_models import ReviewItem, ReviewLabel, ReviewQueue
from shared.evaluators.registry import EvaluatorRegistry
from shared.online.sampling_config import load_config


async def calibration_items(session: AsyncSession, queue: ReviewQueue, field: str) -> list[CalibrationItem]:
    """The queue's items with at least one answer for ``field``, in queue order."""
    rows = await session.execute(
        select(ReviewItem, ReviewLabel.values)
        .join(ReviewLabel, ReviewLabel.review_item_id == ReviewItem.id)
        .where(ReviewItem.queue_id == queue.id)
        .order_by(ReviewItem.position, ReviewLabel.created_at, ReviewLabel.id)
    )
    answers: dict[int, list[object]] = defaultdict(list)
    by_position: dict[int, ReviewItem] = {}
    for item, values in rows.all():
        by_position[item.position] = item
        if field in values:
            answers[item.position].append(values[field])
    items = [by_position[p] for p in sorted(answers)]
    scores = await _scores(session, items)
    return [
        CalibrationItem(
            position=item.position,
            title=item.item_id or f"production turn #{item.sample_id}",
            link=f"/ui/review/{queue.id}/{item.position}",
            answers=answers[item.position],  # type: ignore[arg-type]  # checked against the rubric when stored
            scores=scores.get(item.id, {}),
        )
        for item in items
    ]


async def _scores(session: AsyncSession, items: list[ReviewItem]) -> dict[int, dict[str, float | None]]:
    """review item id → evaluator → score (people's own human.* scores left out)."""
    out: dict[int, dict[str, float | None]] = defaultdict(dict)
    runs = [i for i in items if i.experiment_id is not None]
    if runs:
        keys = {(i.experiment_id, i.item_id, i.trial): i.id for i in runs}
        stmt = select(Score.experiment_id, Score.item_id, Score.trial, Score.name, Score.value).where(
            tuple_(Score.experiment_id, Score.item_id, Score.trial).in_(list(keys))
        )
        for experiment_id, item_id, trial, name, value in (await session.execute(stmt)).all():
            if not name.startswith(HUMAN_METRIC_PREFIX):
                out[keys[(experiment_id, item_id, trial)]][name] = value
    turns = {i.sample_id: i.id for i in items if i.sample_id is not None}
    if turns:
        stmt2 = select(OnlineScore.sample_id, OnlineScore.name, OnlineScore.value).where(
            OnlineScore.sample_id.in_(list(turns))
        )
        for sample_id, name, value in (await session.execute(stmt2)).all():
            if not name.startswith(HUMAN_METRIC_PREFIX):
                out[turns[sample_id]][name] = value
    return out


async def specs_for(session: AsyncSession, queue: ReviewQueue, registry: EvaluatorRegistry) -> MetricSpecs:
    """How the queue's scores read: its experiment's resolved specs, or the project's sampling config's."""
    source = queue.definition.source
    if isinstance(source, ExperimentItemsSource):
        return policy_for((await get_experiment(session, source.experiment_id)).config)
    project = session_project(session)
    assert project is not None, "calibration reads a project's queue"
    config = await load_config(session, project)
    return MetricSpecs(declared=registry.metric_specs(config.evaluators))
