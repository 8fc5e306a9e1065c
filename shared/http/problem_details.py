"""RFC 9457 problem details: the one error shape of Yardstick's HTTP services, the one error root
that becomes an HTTP answer, and the one installer mapping every error to that shape.

``{"type", "title", "status", "detail", "error", "errors"}`` as ``application/problem+json``:
``detail`` is one human sentence (what was wrong, what to do), ``error`` the error's name
(``ExperimentNotFound``, ``NotFound``), ``errors`` the field-level problems of a validation error,
each with its location (``["body", "concurrency"]``).

Rules :func:`install_problem_handlers` enforces on an app:

- a :class:`ProblemError` answers its ``status_code`` and ``message``, named by its class;
- a request that fails validation answers 422 naming each field (the first five in ``detail``),
  each a sentence of :mod:`yardstick.api.validation_messages`: an unknown body field names the closest
  known one (read from the route's body model), a list index counts from 1 (``item 3``);
- an unknown path answers 404 ``NotFound`` naming the path, an unknown method 405
  ``MethodNotAllowed`` naming the allowed one (``Allow`` header kept);
- anything else answers 500 "internal error" and is logged with its traceback, never sent;
- a 413 closes the connection (the body is left unread).

Rendering a problem cannot fail: values that JSON cannot carry (NaN, bytes, objects) are shown by
their ``repr``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from http import HTTPStatus
from typing import Any, ClassVar, cast

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from pydantic_core import ErrorDetails
from starlette.exceptions import HTTPException as StarletteHTTPException

from yardstick.api.validation_messages import location, phrase

__all__ = [
    "PROBLEM_MEDIA_TYPE",
    "FieldProblem",
    "Problem",
    "ProblemError",
    "install_problem_handlers",
    "problem_response",
    "validation_problem",
]

PROBLEM_MEDIA_TYPE = "application/problem+json"

log = logging.getLogger(__name__)


class ProblemError(Exception):
    """The root of every error a Yardstick HTTP service answers as a problem: ``status_code`` and a
    ``message`` saying what was wrong and what to do; ``headers`` go with the answer."""

    status_code: ClassVar[int] = 400
    headers: ClassVar[Mapping[str, str]] = {}

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class FieldProblem(BaseModel):
    loc: list[str | int] = Field(
        description="Where: ['body', 'concurrency'], ['query', 'limit'], ['path', 'id']"
    )
    msg: str
    type: str


class Problem(BaseModel):
    """An error (RFC 9457 problem details)."""

    type: str = Field(default="about:blank", description="No per-problem documentation page: about:blank")
    title: str = Field(description="The HTTP status phrase")
    status: int
    detail: str = Field(description="What was wrong and what to do, in one sentence")
    error: str | None = Field(default=None, description="The domain error, e.g. ExperimentNotFound")
    errors: list[FieldProblem] = Field(default_factory=list, description="Per-field problems (422)")


def problem_response(
    status: int,
    detail: str,
    *,
    error: str | None = None,
    errors: list[FieldProblem] | None = None,
    headers: Mapping[str, str] | None = None,
) -> JSONResponse:
    body = Problem(
        title=HTTPStatus(status).phrase, status=status, detail=detail, error=error, errors=errors or []
    )
    return JSONResponse(
        body.model_dump(mode="json"),
        status_code=status,
        headers=dict(headers) if headers else None,
        media_type=PROBLEM_MEDIA_TYPE,
    )


def _printable(value: Any) -> str:
    return value if isinstance(value, str) else repr(value)


def _sentence(error: Any, body: type[BaseModel] | None) -> tuple[FieldProblem, str]:
    """The field problem and its sentence; a body error is read against the route's body model."""
    loc = [p if isinstance(p, int) else _printable(p) for p in error.get("loc", ())]
    detail = cast(ErrorDetails, {**error, "loc": tuple(loc[1:]), "msg": _printable(error.get("msg", ""))})
    where, what = phrase(detail, body if loc[:1] == ["body"] else None)
    problem = FieldProblem(loc=loc, msg=what, type=_printable(error.get("type", "")))
    return problem, f"{location(where) or (loc[0] if loc else 'request')}: {what}"


def _body_model(request: Request | None) -> type[BaseModel] | None:
    """The model the matched route validates its JSON body with (None: no single model)."""
    field = getattr(request.scope.get("route"), "body_field", None) if request is not None else None
    annotation = getattr(getattr(field, "field_info", None), "annotation", None)
    return annotation if isinstance(annotation, type) and issubclass(annotation, BaseModel) else None


def validation_problem(errors: list[Any], request: Request | None = None) -> JSONResponse:
    """422 naming each field that failed validation (pydantic's ``errors()``), as sentences."""
    body = _body_model(request)
    pairs = [_sentence(e, body) for e in errors]
    where = "; ".join(sentence for _, sentence in pairs[:5])
    more = f" (and {len(pairs) - 5} more)" if len(pairs) > 5 else ""
    return problem_response(
        422,
        f"invalid request: {where}{more}",
        error="RequestValidationError",
        errors=[problem for problem, _ in pairs],
    )


OnProblem = Callable[[ProblemError], Mapping[str, str]]
"""Called with each :class:`ProblemError` before it is answered (to count or log it); returns the
headers to add to the answer."""


def install_problem_handlers(
    app: FastAPI,
    service: str,
    *,
    unknown_path_hint: str = "see /docs for the API",
    on_problem: OnProblem | None = None,
) -> None:
    """Answer every error of ``app`` as problem details (the rules in the module docstring).
    ``service`` names the process in the 500 sentence; ``unknown_path_hint`` ends the 404 one."""

    async def refused(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, ProblemError)
        headers = {**exc.headers, **(on_problem(exc) if on_problem is not None else {})}
        if exc.status_code == 413:
            headers["Connection"] = "close"
        return problem_response(exc.status_code, exc.message, error=type(exc).__name__, headers=headers)

    async def invalid(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        return validation_problem(list(exc.errors()), request)

    async def http(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, StarletteHTTPException)
        method, path = request.method, request.url.path
        if exc.status_code == 404 and exc.detail == "Not Found":
            detail = f"no such endpoint: {method} {path} is not served here; {unknown_path_hint}"
            return problem_response(404, detail, error="NotFound", headers=exc.headers)
        if exc.status_code == 405 and (allowed := (exc.headers or {}).get("Allow")):
            detail = f"{method} is not allowed on {path}: use {allowed}"
            return problem_response(405, detail, error="MethodNotAllowed", headers=exc.headers)
        detail = exc.detail if isinstance(exc.detail, str) else HTTPStatus(exc.status_code).phrase
        return problem_response(exc.status_code, detail, headers=exc.headers)

    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.error("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
        return problem_response(500, f"internal error: the {service}'s log has the details")

    app.add_exception_handler(ProblemError, refused)
    app.add_exception_handler(RequestValidationError, invalid)
    app.add_exception_handler(StarletteHTTPException, http)
    app.add_exception_handler(Exception, unexpected)
