"""What a calibration report reads: a queue's labelled items with each reviewer's answer for one
field and the evaluators' scores of the same items (``scores`` or ``trace_scores``), the population
the queue was drawn from (every item its source selects now, before the sample) with the evaluators'
scores of the items nobody labelled, and the metric specs that say how a score reads as an answer
(the experiment's resolved specs; for traces, the sampling config's for their application)."""

from __future__ import annotations

from collections import defaultdict

from sqlalchemy import select, tuple_
from sqlalchemy.ext.asyncio import AsyncSession

from services.coordinator.experiments.store.experiments import get_experiment
from services.coordinator.review.store.selection import Selected, source_candidates
from shared.analysis import CalibrationItem, MetricSpecs, Population, policy_for
from shared.db.models import Score
from shared.db.project_scope import session_project
from shared.db.review_models import ReviewItem, ReviewLabel, ReviewQueue
from shared.db.trace_models import Trace, TraceScore
from shared.evaluators.registry import EvaluatorRegistry
from shared.online.sampling_config import load_config
from yardstick.api.review import HUMAN_METRIC_PREFIX, ExperimentItemsSource


async def _labelled(
    session: AsyncSession, queue: ReviewQueue, field: str
) -> tuple[list[ReviewItem], dict[int, list[object]]]:
    """The queue's items with at least one answer for ``field`` (queue order) and, by position, the
    answers in labelling order."""
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
    return [by_position[p] for p in sorted(answers)], answers


async def calibration_items(session: AsyncSession, queue: ReviewQueue, field: str) -> list[CalibrationItem]:
    """The queue's items with at least one answer for ``field``, in queue order."""
    items, answers = await _labelled(session, queue, field)
    scores = await _scores(session, items)
    trace_ids = await _trace_ids(session, items)
    return [
        CalibrationItem(
            position=item.position,
            title=_title(item, trace_ids),
            link=f"/ui/review/{queue.id}/{item.position}",
            answers=answers[item.position],  # type: ignore[arg-type]  # checked against the rubric when stored
            scores=scores.get(item.id, {}),
        )
        for item in items
    ]


def _title(item: ReviewItem, trace_ids: dict[int, str]) -> str:
    if item.trace_pk is not None:
        return f"trace {trace_ids.get(item.trace_pk, '(deleted)')}"
    return str(item.item_id)


async def _trace_ids(session: AsyncSession, items: list[ReviewItem]) -> dict[int, str]:
    pks = [i.trace_pk for i in items if i.trace_pk is not None]
    if not pks:
        return {}
    rows = await session.execute(select(Trace.id, Trace.trace_id).where(Trace.id.in_(pks)))
    return {pk: trace_id for pk, trace_id in rows.all()}


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
    traces = {i.trace_pk: i.id for i in items if i.trace_pk is not None}
    if traces:
        stmt3 = select(TraceScore.trace_pk, TraceScore.name, TraceScore.value).where(
            TraceScore.trace_pk.in_(list(traces))
        )
        for trace_pk, name, value in (await session.execute(stmt3)).all():
            if not name.startswith(HUMAN_METRIC_PREFIX):
                out[traces[trace_pk]][name] = value
    return out


async def population(
    session: AsyncSession, queue: ReviewQueue, field: str, evaluators: list[str]
) -> Population:
    """The items the queue's source selects now, before its sample, less those labelled for ``field``,
    with ``evaluators``' scores of each (None where not measured)."""
    source = queue.definition.source
    labelled, _ = await _labelled(session, queue, field)
    taken = {
        Selected(
            experiment_id=i.experiment_id,
            item_id=i.item_id,
            trial=i.trial,
            trace_pk=i.trace_pk,
        )
        for i in labelled
    }
    candidates = await source_candidates(session, source)
    rest = [c for c in candidates if c not in taken]
    scores: dict[Selected, dict[str, float | None]] = defaultdict(dict)
    if isinstance(source, ExperimentItemsSource):
        rows = await session.execute(
            select(Score.experiment_id, Score.item_id, Score.trial, Score.name, Score.value).where(
                Score.experiment_id == source.experiment_id, Score.name.in_(evaluators)
            )
        )
        for experiment_id, item_id, trial, name, value in rows.all():
            scores[Selected(experiment_id=experiment_id, item_id=item_id, trial=trial)][name] = value
        what = f"finished (item, trial)s of experiment {source.experiment_id}"
    else:
        traced = await session.execute(
            select(TraceScore.trace_pk, TraceScore.name, TraceScore.value).where(
                TraceScore.application == source.application, TraceScore.name.in_(evaluators)
            )
        )
        for trace_pk, name, value in traced.all():
            scores[Selected(trace_pk=trace_pk)][name] = value
        what = f"sampled traces of {source.application}"
    return Population(
        description=f"the {len(candidates)} {what} that the queue's source selects (before its sample): "
        f"{len(candidates) - len(rest)} labelled, {len(rest)} not",
        unlabelled={name: [scores.get(c, {}).get(name) for c in rest] for name in evaluators},
    )


async def specs_for(session: AsyncSession, queue: ReviewQueue, registry: EvaluatorRegistry) -> MetricSpecs:
    """How the queue's scores read: its experiment's resolved specs, or the project's sampling config's
    for the traces' application."""
    source = queue.definition.source
    if isinstance(source, ExperimentItemsSource):
        return policy_for((await get_experiment(session, source.experiment_id)).config)
    project = session_project(session)
    assert project is not None, "calibration reads a project's queue"
    config = await load_config(session, project)
    return MetricSpecs(declared=registry.metric_specs(config.for_application(source.application).evaluators))
