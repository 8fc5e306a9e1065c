"""/ui/audit: who changed what (admin keys; the API's GET /audit)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse

from services.coordinator.access.store import audit
from services.coordinator.errors import Forbidden
from services.coordinator.http.deps import SessionDep
from services.coordinator.ui.session import UiSessionDep
from services.coordinator.ui.templating import render
from yardstick.api.audit import AuditAction
from yardstick.api.roles import Role

router = APIRouter()

PER_PAGE = 100


@router.get("/audit", response_class=HTMLResponse)
async def audit_page(
    request: Request,
    ui: UiSessionDep,
    session: SessionDep,
    action: AuditAction | None = None,
    before: datetime | None = None,
    object_id: Annotated[str | None, Query(max_length=300)] = None,
) -> HTMLResponse:
    if not ui.can_administer:
        raise Forbidden(f"this is a {ui.role} key: the audit log needs an admin key")
    entries = await audit.entries(
        session,
        action=action,
        object_id=object_id,
        before=before,
        limit=PER_PAGE,
        include_instance_wide=ui.role is Role.OWNER,
    )
    return render(
        request,
        "audit.html",
        ui=ui,
        section="audit",
        entries=entries,
        actions=list(AuditAction),
        action=action,
        object_id=object_id or "",
        older=entries[-1].at.isoformat() if len(entries) == PER_PAGE else None,
    )
