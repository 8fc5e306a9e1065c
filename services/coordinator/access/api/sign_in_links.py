"""One-time sign-in links for the web UI (what `yardstick ui` prints)."""

from __future__ import annotations

from datetime import timedelta

from fastapi import APIRouter, Depends

from services.coordinator.access.store.sign_in_links import create_link
from services.coordinator.http.deps import ApiKeyDep, RuntimeDep, SessionDep, needs, require_api_key
from services.coordinator.http.problems import ERROR_RESPONSES
from yardstick.api.keys import SignInLinkCreate, SignInLinkOut
from yardstick.api.roles import Role

router = APIRouter(
    prefix="/ui-links",
    tags=["ui"],
    dependencies=[Depends(require_api_key)],
    responses=ERROR_RESPONSES,
)


@router.post("", status_code=201, **needs(Role.VIEWER))
async def create_sign_in_link(
    body: SignInLinkCreate, key_id: ApiKeyDep, session: SessionDep, runtime: RuntimeDep
) -> SignInLinkOut:
    """A link that signs its first user in as this API key and lands on ``path``; it works once,
    for ``UI_LINK_MINUTES`` (5 by default)."""
    token, expires_at = await create_link(
        session, key_id, body.path, timedelta(minutes=runtime.settings.ui_link_minutes)
    )
    await session.commit()
    return SignInLinkOut(url=f"/ui/sign-in/link/{token}", expires_at=expires_at)
