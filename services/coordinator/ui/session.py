"""Signed session cookies for the web UI, and the CSRF token every state-changing form carries.

The cookie holds the API key's id, a CSRF token and the time it was issued, signed with a key
derived from ``YARDSTICK_API_KEY_SECRET`` (every coordinator replica shares it, so sessions work
behind a load balancer). It is HttpOnly and SameSite=Strict; each request re-checks that the key
is still active, so revoking a key ends its sessions, and reads its role: a viewer key sees no
action it may not take, and the server refuses those actions anyway (``RunnerDep``).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from typing import Annotated
from urllib.parse import quote

from fastapi import Depends, Request, Response
from itsdangerous import BadSignature, URLSafeTimedSerializer
from pydantic import BaseModel, Field, ValidationError

from services.coordinator.access.store.projects import find_key, project_of, visible_projects
from services.coordinator.errors import CoordinatorError, Forbidden
from services.coordinator.http.deps import RuntimeDep, SessionDep
from shared.db.models import ApiKey
from shared.db.project_scope import scope_to_project
from yardstick.api.audit import Actor
from yardstick.api.projects import DEFAULT_PROJECT
from yardstick.api.roles import Role

SESSION_COOKIE = "ys_session"
SIGN_IN_COOKIE = "ys_sign_in"
CSRF_HEADER = "X-CSRF-Token"
CSRF_FIELD = "csrf_token"


class UiSession(BaseModel):
    key_id: str
    key_name: str = ""
    csrf: str
    issued_at: float
    role: Role = Field(default=Role.VIEWER, description="The key's role, read from the key on every request")
    key_prefix: str = Field(default="", description="The key's first characters, read with its role")
    project: str = Field(
        default=DEFAULT_PROJECT,
        description="The project the pages show (the key's own; an owner key may switch to any)",
    )
    key_project: str = Field(default=DEFAULT_PROJECT, description="The project the key belongs to")
    projects: list[str] = Field(
        default_factory=list, description="The projects the key may switch to, read on every request"
    )

    @property
    def can_administer(self) -> bool:
        """Whether the pages offer what an admin may see (the audit log)."""
        return self.role.grants(Role.ADMIN)

    @property
    def actor(self) -> Actor:
        """Who makes a change from this session, for the audit log."""
        return Actor(key_id=self.key_id, key_name=self.key_name, key_prefix=self.key_prefix)

    @property
    def can_run(self) -> bool:
        """Whether the pages offer what a runner may do (run a comparison, add a trace to a dataset)."""
        return self.role.grants(Role.RUNNER)


class SignInRequired(CoordinatorError):
    """No valid session: pages redirect to the sign-in page, fragments answer 401 + HX-Redirect (the
    web UI's own handler; an API client would get the 401 problem)."""

    status_code = 401

    def __init__(self, next_path: str) -> None:
        super().__init__(f"sign in to see {next_path}")
        self.next_path = next_path


class CsrfRefused(CoordinatorError):
    """A state-changing request without the session's CSRF token."""

    status_code = 403


def serializer(api_key_secret: str) -> URLSafeTimedSerializer:
    derived = hmac.new(api_key_secret.encode(), b"yardstick-ui-session-v1", hashlib.sha256).hexdigest()
    return URLSafeTimedSerializer(derived, salt="ys-ui-session")


def new_session(key_id: str, key_name: str, project: str = DEFAULT_PROJECT) -> UiSession:
    return UiSession(
        key_id=key_id,
        key_name=key_name,
        project=project,
        csrf=secrets.token_urlsafe(24),
        issued_at=time.time(),
    )


def set_session_cookie(response: Response, request: Request, runtime: RuntimeDep, ui: UiSession) -> None:
    settings = runtime.settings
    token = serializer(settings.api_key_secret.get_secret_value()).dumps(ui.model_dump())
    response.set_cookie(
        SESSION_COOKIE,
        token,
        max_age=int(settings.ui_session_hours * 3600),
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
        path="/ui",
    )


def clear_session_cookie(response: Response) -> None:
    response.delete_cookie(SESSION_COOKIE, path="/ui", httponly=True, samesite="strict")


def read_session(request: Request, api_key_secret: str, max_age_s: float) -> UiSession | None:
    raw = request.cookies.get(SESSION_COOKIE)
    if not raw:
        return None
    try:
        data = serializer(api_key_secret).loads(raw, max_age=int(max_age_s))
        return UiSession.model_validate(data)
    except (BadSignature, ValidationError):
        return None


def requested_path(request: Request) -> str:
    path = request.url.path
    if request.url.query:
        path += "?" + request.url.query
    return path


async def require_ui_session(request: Request, runtime: RuntimeDep, session: SessionDep) -> UiSession:
    """The signed-in session; raises SignInRequired when there is none or its key is no longer active."""
    settings = runtime.settings
    ui = read_session(request, settings.api_key_secret.get_secret_value(), settings.ui_session_hours * 3600)
    if ui is not None:
        key = await find_key(session, ui.key_id)
        if key is not None and key.revoked_at is None and not _expired(key):
            if not key.role.grants(Role.VIEWER):
                raise Forbidden(f"a {key.role} key cannot read: the web UI needs a viewer key or above")
            project = await project_of(session, key, ui.project)
            projects = [row.id for row in await visible_projects(session, key)]
            scope_to_project(session, project)  # every page below sees this project's rows only
            signed_in = ui.model_copy(
                update={
                    "role": key.role,
                    "key_prefix": key.prefix,
                    "key_project": key.project_id,
                    "project": project,
                    "projects": projects,
                }
            )
            request.state.ui = signed_in  # an error page later in this request keeps the page frame
            return signed_in
    raise SignInRequired(requested_path(request))


def _expired(key: ApiKey) -> bool:
    return key.expires_at is not None and key.expires_at.timestamp() <= time.time()


UiSessionDep = Annotated[UiSession, Depends(require_ui_session)]


async def require_csrf(request: Request, ui: UiSessionDep) -> UiSession:
    """State-changing requests carry the session's CSRF token (header for htmx, field for forms)."""
    sent = request.headers.get(CSRF_HEADER)
    if sent is None and request.headers.get("content-type", "").startswith(
        ("application/x-www-form-urlencoded", "multipart/form-data")
    ):
        form = await request.form()
        value = form.get(CSRF_FIELD)
        sent = value if isinstance(value, str) else None
    if not sent or not hmac.compare_digest(sent, ui.csrf):
        raise CsrfRefused("the form is out of date (no valid CSRF token): reload the page and try again")
    return ui


CsrfDep = Annotated[UiSession, Depends(require_csrf)]


async def require_runner(ui: CsrfDep) -> UiSession:
    """A state-changing action a runner key may take (the API's rule for the same action)."""
    if not ui.can_run:
        raise Forbidden(
            f"this is a {ui.role} key: running a comparison or adding a trace to a dataset needs a runner key"
        )
    return ui


RunnerDep = Annotated[UiSession, Depends(require_runner)]


def sign_in_url(next_path: str) -> str:
    return "/ui/sign-in?next=" + quote(next_path, safe="")


def safe_next(path: str | None) -> str:
    """Only paths inside the UI are followed after sign-in (no open redirect)."""
    if not path or not path.startswith("/ui") or path.startswith("/ui/sign-in") or "//" in path:
        return "/ui/experiments"
    return path
