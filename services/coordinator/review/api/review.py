"""Review queues: make one, read its items, label them (a label becomes a ``human.<field>`` score),
turn the labelled items into a dataset version."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query, Response

from services.coordinator.access.store import audit
from services.coordinator.http.deps import CallerDep, SessionDep, needs, require_api_key
from services.coordinator.http.problems import CONFLICT_RESPONSES, ERROR_RESPONSES
from services.coordinator.review import store as review
from yardstick.api.audit import AuditAction
from yardstick.api.datasets import UpsertResult
from yardstick.api.limits import INT4_MAX
from yardstick.api.review import (
    Assignment,
    LabelIn,
    LabelOut,
    NextItem,
    QueueCreate,
    QueueOut,
    QueueToDataset,
    ReviewItemOut,
)
from yardstick.api.roles import Role

router = APIRouter(
    prefix="/review/queues",
    tags=["review"],
    dependencies=[Depends(require_api_key)],
    responses=ERROR_RESPONSES,
)
# a drift alert's review queue lives under /online beside the alerts it reviews
alerts_router = APIRouter(
    prefix="/online",
    tags=["online"],
    dependencies=[Depends(require_api_key)],
    responses=ERROR_RESPONSES,
)

Position = Annotated[int, Path(ge=1, le=INT4_MAX, description="The item's 1-based place in the queue")]
Reviewer = Annotated[
    str | None, Query(min_length=1, max_length=100, description="Whose view (default: the API key's name)")
]


@router.post("", status_code=201, responses=CONFLICT_RESPONSES, **needs(Role.RUNNER))
async def create_queue(body: QueueCreate, session: SessionDep, caller: CallerDep) -> QueueOut:
    """A queue over the items its source selects now (an experiment's items, sampled turns, or one
    application's sampled traces)."""
    queue = await review.create_queue(session, body, caller.name)
    audit.record_queue_created(session, audit.actor(caller), queue.id, body)
    await session.commit()
    return await review.queue_out(session, queue)


@router.get("", **needs(Role.VIEWER))
async def list_queues(session: SessionDep) -> list[QueueOut]:
    """Newest first, with how many items are labelled."""
    return await review.list_queues(session)


@router.get("/{queue}", **needs(Role.VIEWER))
async def get_queue(queue: str, session: SessionDep) -> QueueOut:
    return await review.queue_out(session, await review.get_queue(session, queue))


@router.delete("/{queue}", status_code=204, **needs(Role.ADMIN))
async def delete_queue(queue: str, session: SessionDep, caller: CallerDep) -> Response:
    """Delete a queue and its labels; the human scores they made stay with the items."""
    row = await review.get_queue(session, queue)
    await session.delete(row)
    audit.record(
        session,
        audit.actor(caller),
        AuditAction.REVIEW_QUEUE_DELETE,
        "review_queue",
        row.id,
        before={"name": row.name},
    )
    await session.commit()
    return Response(status_code=204)


@router.get("/{queue}/next", **needs(Role.VIEWER))
async def next_item(
    queue: str,
    session: SessionDep,
    caller: CallerDep,
    after: Annotated[int, Query(ge=0, le=INT4_MAX)] = 0,
    reviewer: Reviewer = None,
) -> NextItem:
    """The next item (after ``after``) this reviewer has not labelled and that still needs labels."""
    row = await review.get_queue(session, queue)
    return NextItem(position=await review.next_position(session, row, reviewer or caller.name, after))


@router.get("/{queue}/items/{position}", **needs(Role.VIEWER))
async def get_item(
    queue: str, position: Position, session: SessionDep, caller: CallerDep, reviewer: Reviewer = None
) -> ReviewItemOut:
    """The item with its input, output, expected output and labels; the evaluators' scores are
    hidden until this reviewer has labelled it when the queue says ``hide_scores``."""
    row = await review.get_queue(session, queue)
    return await review.item_view(session, row, position, reviewer or caller.name)


@router.put("/{queue}/items/{position}/label", **needs(Role.RUNNER))
async def put_label(
    queue: str, position: Position, body: LabelIn, session: SessionDep, caller: CallerDep
) -> LabelOut:
    """Label the item (422 naming the field that does not fit the rubric); labelling again replaces
    this reviewer's label (the audit log keeps the earlier one)."""
    row = await review.get_queue(session, queue)
    reviewer = body.reviewer or caller.name
    label, before = await review.put_label(session, row, position, body, reviewer)
    audit.record_label(session, audit.actor(caller), row.name, position, reviewer, before, label.values)
    await session.commit()
    return label


@router.put("/{queue}/items/{position}/assignee", **needs(Role.RUNNER))
async def assign(
    queue: str, position: Position, body: Assignment, session: SessionDep, caller: CallerDep
) -> Assignment:
    """Ask one reviewer to label the item (``null``: anyone); they are offered it first."""
    row = await review.get_queue(session, queue)
    item = await review.review_item(session, row, position)
    before, item.assigned_to = item.assigned_to, body.reviewer
    audit.record(
        session,
        audit.actor(caller),
        AuditAction.REVIEW_ASSIGN,
        "review_item",
        f"{row.name}#{position}",
        before={"reviewer": before},
        after={"reviewer": body.reviewer},
    )
    await session.commit()
    return body


@router.post("/{queue}/dataset", responses=CONFLICT_RESPONSES, **needs(Role.RUNNER))
async def to_dataset(
    queue: str, body: QueueToDataset, session: SessionDep, caller: CallerDep
) -> UpsertResult:
    """The queue's fully labelled items as a new version of a dataset (labels under
    ``expected_output.human``, ``metadata.source = review``)."""
    row = await review.get_queue(session, queue)
    result = await review.queue_to_dataset(session, row, body.dataset)
    audit.record(
        session,
        audit.actor(caller),
        AuditAction.REVIEW_TO_DATASET,
        "review_queue",
        row.id,
        after={"dataset": result.dataset, "version": result.version},
    )
    await session.commit()
    return result


@alerts_router.post(
    "/alerts/{alert_id}/review", status_code=201, responses=CONFLICT_RESPONSES, **needs(Role.RUNNER)
)
async def review_alert(
    alert_id: Annotated[str, Path(min_length=1, max_length=36)], session: SessionDep, caller: CallerDep
) -> QueueOut:
    """One action from a drift alert to a review queue over its window, with a pass/fail rubric: the
    application's sampled traces. The queue is named ``drift-<first 8 characters of the alert id>``; a
    second call is 409, as is an alert on the agent's turns from before traces (nothing to review)."""
    body = await review.alert_queue(session, alert_id)
    queue = await review.create_queue(session, body, caller.name)
    audit.record_queue_created(session, audit.actor(caller), queue.id, body)
    await session.commit()
    return await review.queue_out(session, queue)
