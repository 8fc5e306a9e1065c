"""The audit log: recording a change (in the caller's transaction) and reading the log back.
There is no update or delete here, and the table refuses both."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from shared.db.models import ApiKey, AuditEvent
from shared.db.project_scope import session_project
from yardstick.api.audit import Actor, AuditAction, AuditChange, AuditEntry
from yardstick.api.datasets import UpsertResult
from yardstick.api.review import QueueCreate


def actor(key: ApiKey) -> Actor:
    return Actor(key_id=key.id, key_name=key.name, key_prefix=key.prefix)


def record(
    session: AsyncSession,
    by: Actor,
    action: AuditAction,
    object_kind: str,
    object_id: str,
    *,
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
    instance_wide: bool = False,
) -> None:
    """Add the row to ``session``: it commits (or rolls back) with the change it records. The row
    belongs to the session's project, unless the change is ``instance_wide`` (a project created)."""
    session.add(
        AuditEvent(
            project_id=None if instance_wide else session_project(session),
            key_id=by.key_id,
            key_name=by.key_name,
            key_prefix=by.key_prefix,
            action=action.value,
            object_kind=object_kind,
            object_id=object_id,
            change=AuditChange(before=before, after=after),
        )
    )


async def entries(
    session: AsyncSession,
    *,
    action: AuditAction | None = None,
    object_id: str | None = None,
    before: datetime | None = None,
    limit: int = 100,
    include_instance_wide: bool = False,
) -> list[AuditEntry]:
    """Newest first; ``before`` pages back in time. The session's project's rows, and, for
    ``include_instance_wide`` (owner keys), the changes to the instance itself."""
    project = session_project(session)
    stmt = select(AuditEvent).order_by(AuditEvent.at.desc(), AuditEvent.id.desc()).limit(limit)
    if include_instance_wide:
        stmt = stmt.where((AuditEvent.project_id == project) | AuditEvent.project_id.is_(None))
    else:
        stmt = stmt.where(AuditEvent.project_id == project)
    if action is not None:
        stmt = stmt.where(AuditEvent.action == action.value)
    if object_id is not None:
        stmt = stmt.where(AuditEvent.object_id == object_id)
    if before is not None:
        stmt = stmt.where(AuditEvent.at < before)
    return [
        AuditEntry(
            id=row.id,
            at=row.at,
            actor=Actor(key_id=row.key_id, key_name=row.key_name, key_prefix=row.key_prefix),
            action=AuditAction(row.action),
            object_kind=row.object_kind,
            object_id=row.object_id,
            change=row.change,
            project=row.project_id,
        )
        for row in (await session.execute(stmt)).scalars()
    ]


def record_trace_to_dataset(session: AsyncSession, by: Actor, trace_id: str, into: UpsertResult) -> None:
    """A sampled trace added to a dataset (the API and the web UI both record it here)."""
    record(
        session,
        by,
        AuditAction.TRACE_TO_DATASET,
        "trace",
        trace_id,
        after={"dataset": into.dataset, "version": into.version},
    )


def record_label(
    session: AsyncSession,
    by: Actor,
    queue: str,
    position: int,
    reviewer: str,
    before: dict[str, Any] | None,
    after: dict[str, Any],
) -> None:
    """A review label given or replaced (the API and the web UI both record it here)."""
    record(
        session,
        by,
        AuditAction.REVIEW_LABEL,
        "review_item",
        f"{queue}#{position}",
        before=None if before is None else {"reviewer": reviewer, "values": before},
        after={"reviewer": reviewer, "values": after},
    )


def record_queue_created(session: AsyncSession, by: Actor, queue_id: str, body: QueueCreate) -> None:
    """A review queue made (the API, a drift alert's action and the web UI all record it here)."""
    record(
        session,
        by,
        AuditAction.REVIEW_QUEUE_CREATE,
        "review_queue",
        queue_id,
        after={"name": body.name, "source": body.source.model_dump(mode="json")},
    )
