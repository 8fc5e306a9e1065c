"""Review queues: make one from its source, list them with their progress, find one."""

from __future__ import annotations

from sqlalchemy import func, insert, select
from sqlalchemy.ext.asyncio import AsyncSession

from services.coordinator.errors import CoordinatorError
from services.coordinator.review.store.alerts import drift_alert
from services.coordinator.review.store.selection import select_items
from shared.db.review_models import ReviewItem, ReviewLabel, ReviewQueue
from yardstick.api.review import QueueCreate, QueueDefinition, QueueOut, Rubric, RubricField, TracesSource


class QueueNotFound(CoordinatorError):
    status_code = 404


class QueueExists(CoordinatorError):
    status_code = 409


class NothingToReview(CoordinatorError):
    """A drift alert whose traffic is no longer stored."""

    status_code = 409


async def create_queue(session: AsyncSession, body: QueueCreate, created_by: str) -> ReviewQueue:
    """The queue and its items, in the session's project (the caller commits)."""
    taken = await session.execute(select(ReviewQueue.id).where(ReviewQueue.name == body.name))
    if taken.first() is not None:
        raise QueueExists(f"a review queue named {body.name!r} exists already: pick another name")
    picked = await select_items(session, body.source)
    queue = ReviewQueue(
        name=body.name,
        description=body.description,
        definition=QueueDefinition.model_validate(body.model_dump(include=set(QueueDefinition.model_fields))),
        created_by=created_by,
    )
    session.add(queue)
    await session.flush()
    rows = [
        {
            "queue_id": queue.id,
            "position": position,
            "experiment_id": item.experiment_id,
            "item_id": item.item_id,
            "trial": item.trial,
            "trace_pk": item.trace_pk,
            "assigned_to": body.assign[(position - 1) % len(body.assign)] if body.assign else None,
        }
        for position, item in enumerate(picked, start=1)
    ]
    await session.execute(insert(ReviewItem), rows)
    return queue


async def get_queue(session: AsyncSession, queue_ref: str) -> ReviewQueue:
    """By id or by name, in the session's project; 404 otherwise."""
    stmt = select(ReviewQueue).where((ReviewQueue.id == queue_ref) | (ReviewQueue.name == queue_ref))
    row = (await session.execute(stmt)).scalars().first()
    if row is None:
        raise QueueNotFound(f"review queue {queue_ref!r} not found: GET /review/queues lists them")
    return row


async def queue_out(session: AsyncSession, queue: ReviewQueue) -> QueueOut:
    return (await _with_progress(session, [queue]))[0]


async def list_queues(session: AsyncSession) -> list[QueueOut]:
    rows = (await session.execute(select(ReviewQueue).order_by(ReviewQueue.created_at.desc()))).scalars()
    return await _with_progress(session, list(rows))


async def _with_progress(session: AsyncSession, queues: list[ReviewQueue]) -> list[QueueOut]:
    if not queues:
        return []
    labels_per_item = (
        select(ReviewItem.queue_id, ReviewItem.id, func.count(ReviewLabel.id).label("n"))
        .outerjoin(ReviewLabel, ReviewLabel.review_item_id == ReviewItem.id)
        .where(ReviewItem.queue_id.in_([q.id for q in queues]))
        .group_by(ReviewItem.queue_id, ReviewItem.id)
        .subquery()
    )
    rows = await session.execute(
        select(labels_per_item.c.queue_id, labels_per_item.c.n, func.count()).group_by(
            labels_per_item.c.queue_id, labels_per_item.c.n
        )
    )
    counts: dict[str, dict[int, int]] = {}
    for queue_id, labels, items in rows.all():
        counts.setdefault(queue_id, {})[int(labels)] = int(items)
    out = []
    for queue in queues:
        by_labels = counts.get(queue.id, {})
        needed = queue.definition.reviewers_per_item
        out.append(
            QueueOut(
                **queue.definition.model_dump(),
                id=queue.id,
                name=queue.name,
                description=queue.description,
                created_at=queue.created_at,
                created_by=queue.created_by,
                items=sum(by_labels.values()),
                labelled=sum(n for labels, n in by_labels.items() if labels >= needed),
                labels=sum(labels * n for labels, n in by_labels.items()),
            )
        )
    return out


DRIFT_RUBRIC = Rubric(
    instructions="A drift alert flagged this window: is each reply acceptable?",
    fields=[
        RubricField(
            name="acceptable", kind="binary", instructions="The reply is what a good agent would say"
        ),
        RubricField(name="note", kind="text", required=False, instructions="What went wrong, if anything"),
    ],
)


async def alert_queue(session: AsyncSession, alert_id: str) -> QueueCreate:
    """A queue of a drift alert's window, with a pass/fail rubric (what the alert's button makes): the
    application's sampled traces. An alert on the agent's turns from before traces (no application)
    is refused: those turns are no longer stored."""
    alert = await drift_alert(session, alert_id)
    if alert.application is None:
        raise NothingToReview(
            f"drift alert {alert.id} is on the agent's turns from before traces, which are no longer "
            "stored: review a later alert on an application, or its traces (source kind 'traces')"
        )
    return QueueCreate(
        name=f"drift-{alert.id[:8]}",
        description=f"The traces of {alert.application} in the window of drift alert {alert.id} "
        f"({alert.evaluator} fell)",
        source=TracesSource(application=alert.application, alert_id=alert.id),
        rubric=DRIFT_RUBRIC,
    )
