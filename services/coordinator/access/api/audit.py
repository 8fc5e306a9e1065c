"""``GET /audit``: who changed what (admin)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Depends, Query

from services.coordinator.access.store import audit
from services.coordinator.http.deps import CallerDep, SessionDep, needs, require_api_key
from services.coordinator.http.problems import ERROR_RESPONSES
from yardstick.api.audit import AuditAction, AuditEntry
from yardstick.api.roles import Role

router = APIRouter(
    prefix="/audit", tags=["audit"], dependencies=[Depends(require_api_key)], responses=ERROR_RESPONSES
)


@router.get("", **needs(Role.ADMIN))
async def list_audit(
    session: SessionDep,
    caller: CallerDep,
    action: AuditAction | None = None,
    object_id: Annotated[str | None, Query(max_length=300)] = None,
    before: datetime | None = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> list[AuditEntry]:
    """The project's recorded changes, newest first (``before``: older than this time, to page back);
    for an owner key also the instance's own (projects created)."""
    return await audit.entries(
        session,
        action=action,
        object_id=object_id,
        before=before,
        limit=limit,
        include_instance_wide=caller.role is Role.OWNER,
    )
