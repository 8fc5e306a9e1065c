"""Wires the web UI into the coordinator's app: pages under /ui, static files, and error pages
(HTML for /ui, the API's problem JSON everywhere else)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from services.coordinator.ui.pages import (
    audit,
    compare,
    datasets,
    experiment,
    experiments,
    item,
    online,
    review,
    sign_in,
    traces,
)
from services.coordinator.ui.session import CsrfRefused, SignInRequired, sign_in_url
from services.coordinator.ui.templating import STATIC_DIR, render
from shared.http.problem_details import ProblemError

Handler = Callable[[Request, Exception], Awaitable[Response]]


def is_ui_path(path: str) -> bool:
    return path == "/ui" or path.startswith("/ui/")


def _error_page(request: Request, status: int, detail: str) -> Response:
    """The normal page frame (the sections' navigation; the session's header when this request
    signed in before it failed) around what went wrong and where to look instead."""
    return render(
        request,
        "error.html",
        ui=getattr(request.state, "ui", None),
        nav=True,
        status=status,
        title=HTTPStatus(status).phrase,
        detail=detail,
        status_code=status,
    )


def refusal_page(scope: MutableMapping[str, Any], status: int, detail: str) -> Response | None:
    """The input guard's refusals under /ui as a page (the API keeps its problem JSON)."""
    if not is_ui_path(scope.get("path", "")):
        return None
    return _error_page(Request(scope), status, f"This address was refused: {detail}.")


def _html_for_ui(api_handler: Handler) -> Handler:
    """Errors under /ui render as a page; the API keeps its problem JSON."""

    async def handle(request: Request, exc: Exception) -> Response:
        if not is_ui_path(request.url.path):
            return await api_handler(request, exc)
        if isinstance(exc, ProblemError):
            return _error_page(request, exc.status_code, exc.message)
        if isinstance(exc, RequestValidationError):
            where = "; ".join(
                f"{'.'.join(str(p) for p in e.get('loc', ())[1:])}: {e.get('msg', '')}"
                for e in exc.errors()[:3]
            )
            return _error_page(request, 422, f"This address has an invalid parameter ({where}).")
        if isinstance(exc, StarletteHTTPException):
            detail = (
                f"There is no page at {request.url.path}. The sections above lead to every page; an "
                "experiment is at /ui/experiments/ followed by its id or name."
                if exc.status_code == 404
                else str(exc.detail)
            )
            return _error_page(request, exc.status_code, detail)
        response = await api_handler(request, exc)  # logs it
        return _error_page(
            request, response.status_code, "Something went wrong; the coordinator's log has the details."
        )

    return handle


async def _sign_in_required(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, SignInRequired)
    if request.headers.get("HX-Request"):
        return Response(status_code=401, headers={"HX-Redirect": sign_in_url(exc.next_path)})
    if request.method != "GET":
        return _error_page(request, 401, "Your session ended: sign in again, then repeat the action.")
    return RedirectResponse(sign_in_url(exc.next_path), status_code=303)


async def _csrf_refused(request: Request, _: Exception) -> Response:
    return _error_page(
        request,
        403,
        "This request did not carry the page's security token (CSRF): reload the page and try again.",
    )


def install_ui(app: FastAPI) -> None:
    app.mount("/ui/static", StaticFiles(directory=STATIC_DIR), name="ui-static")
    for module in (sign_in, experiments, experiment, item, compare, datasets, online, traces, review, audit):
        app.include_router(module.router, prefix="/ui", include_in_schema=False)

    @app.get("/", include_in_schema=False)
    async def root() -> RedirectResponse:
        return RedirectResponse("/ui/experiments", status_code=307)

    @app.get("/ui", include_in_schema=False)
    async def ui_root() -> RedirectResponse:
        return RedirectResponse("/ui/experiments", status_code=307)

    for exc_type in (ProblemError, RequestValidationError, StarletteHTTPException, Exception):
        api_handler: Handler = app.exception_handlers[exc_type]  # type: ignore[assignment]
        app.add_exception_handler(exc_type, _html_for_ui(api_handler))
    app.add_exception_handler(SignInRequired, _sign_in_required)
    app.add_exception_handler(CsrfRefused, _csrf_refused)
