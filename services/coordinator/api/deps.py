"""FastAPI dependencies: the DB session, the API key check, the running coordinator runtime."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.ext.asyncio import AsyncSession

from services.coordinator.errors import Unauthorized
from services.coordinator.runtime import Runtime
from shared.db.api_keys import verify_key

_bearer = HTTPBearer(auto_error=False, description="API key from `yardstick keys create`")


def get_runtime(request: Request) -> Runtime:
    runtime: Runtime = request.app.state.runtime
    return runtime


RuntimeDep = Annotated[Runtime, Depends(get_runtime)]


async def get_session(runtime: RuntimeDep) -> AsyncIterator[AsyncSession]:
    async with runtime.sessions() as session:
        yield session


SessionDep = Annotated[AsyncSession, Depends(get_session)]


async def require_api_key(
    runtime: RuntimeDep,
    session: SessionDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> str:
    if credentials is None or credentials.scheme.lower() != "bearer":
        raise Unauthorized(
            "missing API key: send 'Authorization: Bearer <key>' (create one: yardstick keys create)"
        )
    row = await verify_key(
        session, runtime.settings.api_key_secret.get_secret_value(), credentials.credentials
    )
    if row is None:
        raise Unauthorized("invalid or revoked API key")
    return row.id


ApiKeyDep = Annotated[str, Depends(require_api_key)]
