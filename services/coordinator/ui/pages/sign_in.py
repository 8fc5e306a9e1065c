"""Signing in: with an API key on the sign-in page, or with a one-time link from `yardstick ui`."""

from __future__ import annotations

import hmac
import secrets
from typing import Annotated
from urllib.parse import parse_qs, urlsplit

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from services.coordinator.access.store.projects import find_key, project_for
from services.coordinator.access.store.sign_in_links import spend_link
from services.coordinator.http.deps import RuntimeDep, SessionDep
from services.coordinator.ui.session import (
    SIGN_IN_COOKIE,
    CsrfDep,
    clear_session_cookie,
    new_session,
    safe_next,
    set_session_cookie,
)
from services.coordinator.ui.templating import render
from shared.db.api_keys import verify_key
from shared.db.models import ApiKey

router = APIRouter()


def _sign_in_form(
    request: Request, next_path: str, error: str | None, status_code: int = 200
) -> HTMLResponse:
    token = secrets.token_urlsafe(24)
    response = render(
        request,
        "sign_in.html",
        ui=None,
        next_path=next_path,
        form_token=token,
        error=error,
        status_code=status_code,
    )
    response.set_cookie(SIGN_IN_COOKIE, token, max_age=1800, httponly=True, samesite="strict", path="/ui")
    return response


@router.get("/sign-in", response_class=HTMLResponse)
async def sign_in_page(
    request: Request, next: Annotated[str | None, Query(max_length=2000)] = None
) -> HTMLResponse:
    return _sign_in_form(request, safe_next(next), None)


@router.post("/sign-in", response_class=HTMLResponse)
async def sign_in(
    request: Request,
    runtime: RuntimeDep,
    session: SessionDep,
    key: Annotated[str, Form(max_length=500)] = "",
    form_token: Annotated[str, Form(max_length=200)] = "",
    next: Annotated[str, Form(max_length=2000)] = "/ui/experiments",
) -> Response:
    """The form carries a token matching its own SameSite cookie, so another site cannot sign a
    browser in with the attacker's key (login CSRF)."""
    expected = request.cookies.get(SIGN_IN_COOKIE, "")
    if not expected or not hmac.compare_digest(expected, form_token):
        return _sign_in_form(request, safe_next(next), "The form expired: sign in again.", 403)
    row = await verify_key(session, runtime.settings.api_key_secret.get_secret_value(), key.strip())
    if row is None:
        return _sign_in_form(
            request,
            safe_next(next),
            "That key is not valid (unknown, revoked or expired). Create one with `yardstick keys create`.",
            401,
        )
    return _signed_in(request, runtime, row, safe_next(next))


def _signed_in(request: Request, runtime: RuntimeDep, key: ApiKey, path: str) -> Response:
    """The session opens in the project the link names (``?project=``, as `yardstick ui --project`
    makes it), else in the key's own; a project the key may not use is checked on every page."""
    project = parse_qs(urlsplit(path).query).get("project", [key.project_id])[0]
    response = RedirectResponse(path, status_code=303)
    set_session_cookie(response, request, runtime, new_session(key.id, key.name, project))
    response.delete_cookie(SIGN_IN_COOKIE, path="/ui")
    return response


@router.get("/sign-in/link/{token}", response_class=HTMLResponse)
async def sign_in_with_link(
    token: str, request: Request, runtime: RuntimeDep, session: SessionDep
) -> Response:
    link = await spend_link(session, token[:200])
    key = await find_key(session, link.key_id) if link else None
    await session.commit()
    if link is None or key is None or key.revoked_at is not None:
        return _sign_in_form(
            request,
            "/ui/experiments",
            "This sign-in link was already used or has expired (links work once, for a few minutes). "
            "Run `yardstick ui` for a new one, or sign in with an API key.",
            410,
        )
    return _signed_in(request, runtime, key, safe_next(link.path))


@router.post("/project")
async def switch_project(
    request: Request,
    runtime: RuntimeDep,
    session: SessionDep,
    ui: CsrfDep,
    project: Annotated[str, Form(max_length=64)] = "",
) -> Response:
    """The project switcher: show another project the key may act in (404 for any other)."""
    chosen = await project_for(session, ui.role, ui.key_project, project)
    response = RedirectResponse("/ui/experiments", status_code=303)
    set_session_cookie(response, request, runtime, ui.model_copy(update={"project": chosen}))
    return response


@router.post("/sign-out")
async def sign_out(_: CsrfDep) -> Response:
    response = RedirectResponse("/ui/sign-in", status_code=303)
    clear_session_cookie(response)
    return response
