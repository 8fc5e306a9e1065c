"""API keys: create one (of a role no higher than the caller's), list them, revoke one."""

from __future__ import annotations

from datetime import UTC, datetime

from fastapi import APIRouter, Depends, Response

from services.coordinator.access.store import audit
from services.coordinator.access.store.projects import current_project, project_for_key
from services.coordinator.errors import CoordinatorError, Forbidden
from services.coordinator.http.deps import CallerDep, RuntimeDep, SessionDep, needs, require_api_key
from services.coordinator.http.problems import ERROR_RESPONSES
from shared.db.api_keys import create_key, list_keys, revoke_key
from shared.db.models import ApiKey
from shared.db.project_scope import scope_to_project
from yardstick.api.audit import AuditAction
from yardstick.api.durations import parse_duration
from yardstick.api.keys import KeyCreate, KeyCreated, KeyOut
from yardstick.api.roles import Role

router = APIRouter(
    prefix="/keys",
    tags=["keys"],
    dependencies=[Depends(require_api_key)],
    responses=ERROR_RESPONSES,
)


class KeyNotFound(CoordinatorError):
    status_code = 404


def _out(row: ApiKey) -> KeyOut:
    expired = row.expires_at is not None and row.expires_at <= datetime.now(UTC)
    return KeyOut(
        id=row.id,
        name=row.name,
        prefix=row.prefix,
        created_at=row.created_at,
        last_used_at=row.last_used_at,
        expires_at=row.expires_at,
        revoked_at=row.revoked_at,
        active=row.revoked_at is None and not expired,
        role=row.role,
        project=row.project_id,
    )


def _brief(row: ApiKey) -> dict[str, str]:
    return {"name": row.name, "prefix": row.prefix, "role": row.role.value, "project": row.project_id}


@router.post("", status_code=201, **needs(Role.ADMIN))
async def create_api_key(
    body: KeyCreate, caller: CallerDep, session: SessionDep, runtime: RuntimeDep
) -> KeyCreated:
    """A new key, shown in the answer and never again, acting in ``project`` (default: the request's).
    An admin key creates keys up to admin in its own project; only an owner key creates owner keys,
    or keys of another project."""
    if not caller.role.may_create(body.role):
        raise Forbidden(f"a {caller.role} key cannot create {body.role} keys: only an owner key can")
    project = await project_for_key(session, caller, body.project or current_project(session))
    scope_to_project(session, project)  # the key and its audit row belong to that project
    expires_at = datetime.now(UTC) + parse_duration(body.expires_in) if body.expires_in else None
    secret = runtime.settings.api_key_secret.get_secret_value()
    row, key = await create_key(session, secret, body.name, body.role, project, expires_at)
    audit.record(session, audit.actor(caller), AuditAction.KEY_CREATE, "key", row.id, after=_brief(row))
    await session.commit()
    return KeyCreated(**_out(row).model_dump(), key=key)


@router.get("", **needs(Role.ADMIN))
async def list_api_keys(session: SessionDep) -> list[KeyOut]:
    """The project's keys, newest first, with their last use; the keys themselves are never shown again."""
    return [_out(row) for row in await list_keys(session)]


@router.delete("/{key_ref}", status_code=204, **needs(Role.ADMIN))
async def revoke_api_key(key_ref: str, session: SessionDep, caller: CallerDep) -> Response:
    """Revoke the key with this id or prefix; it is refused from the next request on."""
    row = await revoke_key(session, key_ref)
    if row is None:
        raise KeyNotFound(f"no single key has id or prefix {key_ref!r}: `yardstick keys list` shows them")
    audit.record(session, audit.actor(caller), AuditAction.KEY_REVOKE, "key", row.id, before=_brief(row))
    await session.commit()
    return Response(status_code=204)
