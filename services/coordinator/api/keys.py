"""API keys: list them and revoke one (creating one needs the database and the key secret:
``yardstick keys create`` on the stack's machine)."""

from __future__ import annotations

from datetime import UTC, datetime

from fastapi import APIRouter, Depends, Response

from services.coordinator.api.deps import SessionDep, require_api_key
from services.coordinator.api.problems import ERROR_RESPONSES
from services.coordinator.errors import CoordinatorError
from services.coordinator.schemas import KeyOut
from shared.db.api_keys import list_keys, revoke_key
from shared.db.models import ApiKey

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
    )


@router.get("")
async def list_api_keys(session: SessionDep) -> list[KeyOut]:
    """Every key, newest first, with its last use; the keys themselves are never shown again."""
    return [_out(row) for row in await list_keys(session)]


@router.delete("/{key_ref}", status_code=204)
async def revoke_api_key(key_ref: str, session: SessionDep) -> Response:
    """Revoke the key with this id or prefix; it is refused from the next request on."""
    row = await revoke_key(session, key_ref)
    if row is None:
        raise KeyNotFound(f"no single key has id or prefix {key_ref!r}: `yardstick keys list` shows them")
    await session.commit()
    return Response(status_code=204)
