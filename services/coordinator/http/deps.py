"""FastAPI dependencies: the DB session, the API key and role check, the running coordinator runtime.

Every route declares the role it needs, in its decorator: ``@router.get("", **needs(Role.VIEWER))``
(an OpenAPI extension, ``x-yardstick-role``, so the declaration is visible in the API document and
the role x route test is generated from it). ``require_api_key``, on every router, refuses a key
whose role does not grant it (403), and a route that declares nothing (fail closed)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import Depends, Header, Request
from fastapi.routing import APIRoute
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.ext.asyncio import AsyncSession

from services.coordinator.access.store.projects import project_for_key
from services.coordinator.errors import Forbidden, Unauthorized
from services.coordinator.runtime import Runtime
from shared.db.api_keys import verify_key
from shared.db.models import ApiKey
from shared.db.project_scope import scope_to_project
from yardstick.api.projects import PROJECT_HEADER
from yardstick.api.roles import Role

ROLE_EXTENSION = "x-yardstick-role"


def needs(role: Role) -> dict[str, Any]:
    """Route decorator arguments declaring the role the route needs."""
    return {"openapi_extra": {ROLE_EXTENSION: role.value}}


def declared_role(route: object) -> Role | None:
    """The role ``route`` declares with :func:`needs`; None when it declares none."""
    extra = route.openapi_extra if isinstance(route, APIRoute) else None
    value = (extra or {}).get(ROLE_EXTENSION)
    return None if value is None else Role(value)


_bearer = HTTPBearer(auto_error=False, description="API key from `yardstick keys create`")


def get_runtime(request: Request) -> Runtime:
    runtime: Runtime = request.app.state.runtime
    return runtime


RuntimeDep = Annotated[Runtime, Depends(get_runtime)]


async def get_session(runtime: RuntimeDep) -> AsyncIterator[AsyncSession]:
    async with runtime.sessions() as session:
        yield session


SessionDep = Annotated[AsyncSession, Depends(get_session)]


async def authenticated_key(
    request: Request,
    runtime: RuntimeDep,
    session: SessionDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    project: Annotated[
        str | None,
        Header(
            alias=PROJECT_HEADER,
            description="The project to act in (default: the key's own). Only an owner key may name "
            "another project; for any other key another project does not exist (404).",
        ),
    ] = None,
) -> ApiKey:
    """The caller's active key, if its role grants what the matched route declares; from here on the
    request's session sees only the chosen project's rows (``shared.db.project_scope``)."""
    if credentials is None or credentials.scheme.lower() != "bearer":
        raise Unauthorized(
            "missing API key: send 'Authorization: Bearer <key>' (create one: yardstick keys create)"
        )
    row = await verify_key(
        session, runtime.settings.api_key_secret.get_secret_value(), credentials.credentials
    )
    if row is None:
        raise Unauthorized("invalid or revoked API key")
    needed = declared_role(request.scope.get("route"))
    if needed is None:
        raise Forbidden(f"{request.method} {request.url.path} declares no role, so no key may use it")
    if not row.role.grants(needed):
        raise Forbidden(
            f"this is a {row.role} key and {request.method} {request.url.path} needs the {needed} role "
            f"or above: ask an admin for such a key (yardstick keys create --role {needed})"
        )
    scope_to_project(session, await project_for_key(session, row, project))
    return row


CallerDep = Annotated[ApiKey, Depends(authenticated_key)]


async def require_api_key(caller: CallerDep) -> str:
    """The router-wide check: a valid key whose role grants the route's; returns the key's id."""
    return caller.id


ApiKeyDep = Annotated[str, Depends(require_api_key)]
