"""Projects: which one a request acts in, creating and listing them.

A key belongs to one project and acts there; an owner key (the whole instance) may act in any
project by naming it. For any other key, another project does not exist: the same 404 as an
unknown name, so a key cannot learn which projects exist."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from services.coordinator.errors import ProjectExists, ProjectNotFound
from shared.db.models import ApiKey, Project
from shared.db.project_scope import session_project
from yardstick.api.roles import Role


async def project_for_key(session: AsyncSession, key: ApiKey, requested: str | None) -> str:
    """The project a request by ``key`` acts in: ``requested`` if the key may act there, else 404."""
    return await project_for(session, key.role, key.project_id, requested)


async def project_for(session: AsyncSession, role: Role, own: str, requested: str | None) -> str:
    """The project a key of ``role`` belonging to ``own`` acts in when it asks for ``requested``."""
    if requested is None or requested == own:
        return own
    if role is Role.OWNER and await session.get(Project, requested) is not None:
        return requested
    raise ProjectNotFound(
        f"no project {requested!r} for this key: a {role} key acts in its own project "
        f"({own!r}); `yardstick projects list` shows the projects you can use"
    )


async def create_project(session: AsyncSession, project_id: str, description: str) -> Project:
    if await session.get(Project, project_id) is not None:
        raise ProjectExists(f"project {project_id!r} exists already: pick another name")
    row = Project(id=project_id, description=description)
    session.add(row)
    await session.flush()
    return row


async def visible_projects(session: AsyncSession, key: ApiKey) -> list[Project]:
    """Every project for an owner key; the key's own project for any other."""
    stmt = select(Project).order_by(Project.id)
    if key.role is not Role.OWNER:
        stmt = stmt.where(Project.id == key.project_id)
    return list((await session.execute(stmt)).scalars())


def current_project(session: AsyncSession) -> str:
    """The project the request's session is scoped to (set when its key was checked)."""
    project = session_project(session)
    if project is None:
        raise RuntimeError("the session is not scoped to a project: was the API key checked?")
    return project


async def find_key(session: AsyncSession, key_id: str) -> ApiKey | None:
    """The API key of this id (revoked or expired ones too: the caller decides)."""
    return await session.get(ApiKey, key_id)


async def project_of(session: AsyncSession, key: ApiKey, chosen: str) -> str:
    """A signed-in session's chosen project if the key may still act there, else the key's own."""
    try:
        return await project_for_key(session, key, chosen)
    except ProjectNotFound:  # deleted meanwhile, or chosen with another key: fall back, do not fail
        return key.project_id
