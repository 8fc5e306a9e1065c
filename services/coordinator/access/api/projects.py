"""Projects: create one (owner keys), list the ones the key may act in."""

from __future__ import annotations

from fastapi import APIRouter, Depends

from services.coordinator.access.store import audit
from services.coordinator.access.store.projects import create_project, visible_projects
from services.coordinator.http.deps import CallerDep, SessionDep, needs, require_api_key
from services.coordinator.http.problems import CONFLICT_RESPONSES, ERROR_RESPONSES
from shared.db.models import Project
from yardstick.api.audit import AuditAction
from yardstick.api.projects import ProjectCreate, ProjectOut
from yardstick.api.roles import Role

router = APIRouter(
    prefix="/projects",
    tags=["projects"],
    dependencies=[Depends(require_api_key)],
    responses=ERROR_RESPONSES,
)


def _out(row: Project) -> ProjectOut:
    return ProjectOut(name=row.id, description=row.description, created_at=row.created_at)


@router.post("", status_code=201, responses=CONFLICT_RESPONSES, **needs(Role.OWNER))
async def create(body: ProjectCreate, session: SessionDep, caller: CallerDep) -> ProjectOut:
    """A new, empty project; give it keys with ``POST /keys {"project": …}``. 409 if the name is taken."""
    row = await create_project(session, body.name, body.description)
    audit.record(
        session, audit.actor(caller), AuditAction.PROJECT_CREATE, "project", row.id, instance_wide=True
    )
    await session.commit()
    return _out(row)


@router.get("", **needs(Role.VIEWER))
async def list_projects(session: SessionDep, caller: CallerDep) -> list[ProjectOut]:
    """Every project for an owner key; the key's own project for any other."""
    return [_out(row) for row in await visible_projects(session, caller)]
