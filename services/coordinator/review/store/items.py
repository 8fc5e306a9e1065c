"""One queue item as a reviewer sees it: what was asked, what came back (for a trace: its messages,
tool calls and trajectory, and a link to its page), what was expected, the evaluators' scores
(hidden until this reviewer has labelled, when the queue asks so), the labels."""

from __future__ import annotations

from sqlalchemy import case, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from services.coordinator.review.store.labels import labels_of, review_item
from services.coordinator.traces.store.traces import trace_by_pk
from shared.db.models import ExperimentItem, Score
from shared.db.review_models import ReviewItem, ReviewLabel, ReviewQueue
from shared.db.trace_models import TraceScore
from shared.online.trace_payload import evaluation_input, evaluation_metadata, evaluation_output
from yardstick.api.review import HUMAN_METRIC_PREFIX, ReviewItemOut
from yardstick.api.traces import trace_page


async def queue_size(session: AsyncSession, queue: ReviewQueue) -> int:
    stmt = (
        select(ReviewItem.position)
        .where(ReviewItem.queue_id == queue.id)
        .order_by(ReviewItem.position.desc())
    )
    return int((await session.execute(stmt.limit(1))).scalar_one_or_none() or 0)


async def next_position(
    session: AsyncSession, queue: ReviewQueue, reviewer: str, after: int = 0
) -> int | None:
    """The first item after ``after`` that ``reviewer`` has not labelled and that still needs a
    label (fewer than ``reviewers_per_item``): one assigned to ``reviewer`` first, then an unassigned
    one, then one assigned to someone else; None when the queue holds no such item."""
    mine = select(ReviewLabel.review_item_id).where(ReviewLabel.reviewer == reviewer)
    counts = (
        select(ReviewLabel.review_item_id, func.count().label("n"))
        .group_by(ReviewLabel.review_item_id)
        .subquery()
    )
    stmt = (
        select(ReviewItem.position)
        .outerjoin(counts, counts.c.review_item_id == ReviewItem.id)
        .where(
            ReviewItem.queue_id == queue.id,
            ReviewItem.position > after,
            ReviewItem.id.not_in(mine),
            func.coalesce(counts.c.n, 0) < queue.definition.reviewers_per_item,
        )
        .order_by(
            case((ReviewItem.assigned_to == reviewer, 0), (ReviewItem.assigned_to.is_(None), 1), else_=2),
            ReviewItem.position,
        )
        .limit(1)
    )
    position = (await session.execute(stmt)).scalar_one_or_none()
    return None if position is None else int(position)


async def item_view(session: AsyncSession, queue: ReviewQueue, position: int, reviewer: str) -> ReviewItemOut:
    item = await review_item(session, queue, position)
    labels = await labels_of(session, item.id)
    show_scores = not queue.definition.hide_scores or any(label.reviewer == reviewer for label in labels)
    view = ReviewItemOut(
        queue_id=queue.id,
        position=position,
        total=await queue_size(session, queue),
        experiment_id=item.experiment_id,
        item_id=item.item_id,
        trial=item.trial,
        labels=labels,
        assigned_to=item.assigned_to,
    )
    if item.trace_pk is not None:
        scores = await _trace_content(session, item.trace_pk, view)
    else:
        scores = await _experiment_content(session, item, view)
    if show_scores:
        view.scores = {name: value for name, value in scores if not name.startswith(HUMAN_METRIC_PREFIX)}
    return view


Scores = list[tuple[str, float | None]]


async def _experiment_content(session: AsyncSession, item: ReviewItem, view: ReviewItemOut) -> Scores:
    row = (
        await session.execute(
            select(ExperimentItem).where(
                ExperimentItem.experiment_id == item.experiment_id,
                ExperimentItem.item_id == item.item_id,
                ExperimentItem.trial == item.trial,
            )
        )
    ).scalar_one_or_none()
    scores = await session.execute(
        select(Score.name, Score.value).where(
            Score.experiment_id == item.experiment_id,
            Score.item_id == item.item_id,
            Score.trial == item.trial,
        )
    )
    if row is not None:
        view.input, view.output = row.input, row.output
        view.expected_output, view.metadata = row.expected_output, row.item_metadata
    return [(name, value) for name, value in scores.all()]


async def _trace_content(session: AsyncSession, trace_pk: int, view: ReviewItemOut) -> Scores:
    """The trace's input messages, its output (reply, tool calls with arguments and results, the
    trajectory the page shows as a conversation), where it came from, and its online scores."""
    trace = await trace_by_pk(session, trace_pk)
    if trace is None:  # dropped by retention, which deletes its queue items too
        return []
    record = trace.record
    output = evaluation_output(record)
    view.trace_id, view.trace_url = trace.trace_id, trace_page(trace.trace_id)
    view.input = evaluation_input(record)
    view.output = {k: output[k] for k in ("response", "tool_calls", "trajectory", "latency_ms", "error")}
    view.metadata = evaluation_metadata(record)
    scores = await session.execute(
        select(TraceScore.name, TraceScore.value).where(
            TraceScore.trace_pk == trace_pk, TraceScore.day == trace.day
        )
    )
    return [(name, value) for name, value in scores.all()]
