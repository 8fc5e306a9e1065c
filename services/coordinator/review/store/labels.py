"""Labels: one reviewer's answer for one item, checked against the rubric, replacing that
reviewer's earlier answer; the item's ``human.<field>`` scores (beside its evaluators' scores: in
``scores`` or ``trace_scores``) are recomputed from all its labels in the same
transaction (the item row is locked, so two reviewers at once both count)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from services.coordinator.errors import CoordinatorError
from services.coordinator.traces.store.traces import trace_by_pk
from shared.db.base import utcnow
from shared.db.models import Score
from shared.db.outcome_rows import score_row, stored_trace_score_rows
from shared.db.review_models import ReviewItem, ReviewLabel, ReviewQueue
from shared.db.trace_models import TraceScore
from yardstick.api.evaluation import Evaluation
from yardstick.api.review import HUMAN_SOURCE, LabelIn, LabelOut, LabelValue, Rubric, human_metric

LABEL_EVALUATOR_VERSION = "human"


class ReviewItemNotFound(CoordinatorError):
    status_code = 404


class InvalidLabel(CoordinatorError):
    status_code = 422


async def review_item(
    session: AsyncSession, queue: ReviewQueue, position: int, *, lock: bool = False
) -> ReviewItem:
    stmt = select(ReviewItem).where(ReviewItem.queue_id == queue.id, ReviewItem.position == position)
    if lock:
        stmt = stmt.with_for_update()
    row = (await session.execute(stmt)).scalar_one_or_none()
    if row is None:
        raise ReviewItemNotFound(f"queue {queue.name!r} has no item {position} (it holds positions from 1)")
    return row


def _out(row: ReviewLabel) -> LabelOut:
    return LabelOut(
        reviewer=row.reviewer, values=row.values, created_at=row.created_at, updated_at=row.updated_at
    )


async def labels_of(session: AsyncSession, item_id: int) -> list[LabelOut]:
    stmt = select(ReviewLabel).where(ReviewLabel.review_item_id == item_id).order_by(ReviewLabel.created_at)
    return [_out(row) for row in (await session.execute(stmt)).scalars()]


async def put_label(
    session: AsyncSession, queue: ReviewQueue, position: int, body: LabelIn, reviewer: str
) -> tuple[LabelOut, dict[str, LabelValue] | None]:
    """Store the label (replacing ``reviewer``'s earlier one) and the item's human scores; returns
    the label and the values it replaced (None if new). The caller commits."""
    rubric = queue.definition.rubric
    try:
        values = rubric.check(body.values)
    except ValueError as exc:
        raise InvalidLabel(f"{exc} (queue {queue.name!r})") from exc
    item = await review_item(session, queue, position, lock=True)
    previous = (
        await session.execute(
            select(ReviewLabel.values).where(
                ReviewLabel.review_item_id == item.id, ReviewLabel.reviewer == reviewer
            )
        )
    ).scalar_one_or_none()
    now = utcnow()
    upsert = (
        insert(ReviewLabel)
        .values(review_item_id=item.id, reviewer=reviewer, values=values, created_at=now, updated_at=now)
        .on_conflict_do_update(
            index_elements=["review_item_id", "reviewer"], set_={"values": values, "updated_at": now}
        )
        .returning(ReviewLabel)
    )
    row = (await session.execute(upsert)).scalar_one()
    await _store_human_scores(session, queue, rubric, item)
    return _out(row), previous


def _human_scores(rubric: Rubric, labels: list[LabelOut], queue: ReviewQueue) -> list[Evaluation]:
    """Per numeric field: the mean normalised value over the reviewers who gave it."""
    out = []
    for field in rubric.fields:
        if not field.numeric:
            continue
        given = [(label.reviewer, label.values[field.name]) for label in labels if field.name in label.values]
        if not given:
            continue
        normalised = [field.normalised(value) for _, value in given]
        value = sum(v for v in normalised if v is not None) / len(normalised)
        out.append(
            Evaluation(
                name=human_metric(field.name),
                value=value,
                comment="; ".join(f"{who}: {field.said(raw)}" for who, raw in given),
                metadata={
                    "source": HUMAN_SOURCE,
                    "queue": queue.name,
                    "queue_id": queue.id,
                    "kind": field.kind,
                    "scale": list(field.scale) if field.scale else None,
                    "reviewers": [{"reviewer": who, "value": raw} for who, raw in given],
                },
                evaluator_version=LABEL_EVALUATOR_VERSION,
            )
        )
    return out


async def _store_human_scores(
    session: AsyncSession, queue: ReviewQueue, rubric: Rubric, item: ReviewItem
) -> None:
    scores = _human_scores(rubric, await labels_of(session, item.id), queue)
    if not scores:
        return
    if item.trace_pk is None:
        owner: dict[str, Any] = {
            "experiment_id": item.experiment_id,
            "item_id": item.item_id,
            "trial": item.trial,
        }
        rows = [{**owner, **score_row(e)} for e in scores]
        await _upsert_scores(session, Score, ("experiment_id", "item_id", "trial"), rows)
    else:
        trace = await trace_by_pk(session, item.trace_pk)
        if trace is None:  # dropped by retention, which deletes its queue items too
            return
        await _upsert_scores(session, TraceScore, ("trace_pk", "day"), stored_trace_score_rows(trace, scores))


async def _upsert_scores(
    session: AsyncSession,
    table: type[Score] | type[TraceScore],
    key: tuple[str, ...],
    rows: list[dict[str, Any]],
) -> None:
    """The ``human.<field>`` score ``rows`` (one per ``key`` and name, made by ``shared.db.outcome_rows``)
    beside the evaluators' scores; a label saved again replaces their value, comment and metadata."""
    stmt = insert(table).values(rows)
    replaced: dict[str, Any] = {
        "value": stmt.excluded.value,
        "comment": stmt.excluded.comment,
        "metadata": stmt.excluded.metadata,
        "error": None,
        "failure": None,
    }
    if table is TraceScore:
        replaced["evaluator_version"] = LABEL_EVALUATOR_VERSION
    await session.execute(stmt.on_conflict_do_update(index_elements=[*key, "name"], set_=replaced))
