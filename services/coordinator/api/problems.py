"""One error shape for every error the API returns: RFC 9457 problem details.

``{"type", "title", "status", "detail", "error", "errors"}`` as ``application/problem+json``:
``detail`` is always one human sentence (what was wrong, what to do), ``error`` the domain error's
name (``ExperimentNotFound``), ``errors`` the field-level problems of a validation error, each with
its location (``["body", "concurrency"]``). Domain errors, validation errors, unknown routes and
unexpected failures all answer in it; an unexpected failure says "internal error" and is logged
with its traceback, never sent to the client. Rendering a problem cannot fail: values that JSON
cannot carry (NaN, bytes, objects) are shown by their ``repr``.
"""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException

from services.coordinator.errors import CoordinatorError, Unauthorized
from shared.http.problem_details import PROBLEM_MEDIA_TYPE, FieldProblem, Problem, problem_response

log = logging.getLogger(__name__)


def _responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    return {
        status: {
            "model": Problem,
            "description": HTTPStatus(status).phrase,
            "content": {PROBLEM_MEDIA_TYPE: {"schema": {"$ref": "#/components/schemas/Problem"}}},
        }
        for status in statuses
    }


ERROR_RESPONSES = _responses(401, 404, 413, 422)
"""What every authenticated route may answer besides its success (routes add 409 where it applies)."""
CONFLICT_RESPONSES = _responses(409)


def report_responses(model: type[BaseModel]) -> dict[int | str, dict[str, Any]]:
    """A report route's answers: ``model`` as JSON, markdown or JUnit XML by ``format``; 409 while
    there is nothing to report yet."""
    text = {"schema": {"type": "string"}}
    return {
        200: {
            "model": model,
            "description": "format=json: the model; md: markdown; junit: JUnit XML",
            "content": {"text/markdown": text, "application/xml": text},
        },
        **CONFLICT_RESPONSES,
    }


def _printable(value: Any) -> str:
    return value if isinstance(value, str) else repr(value)


def _field_problem(error: Any) -> FieldProblem:
    loc = [p if isinstance(p, int) else _printable(p) for p in error.get("loc", ())]
    msg = _printable(error.get("msg", "")).removeprefix("Value error, ")  # pydantic's prefix says nothing
    return FieldProblem(loc=loc, msg=msg, type=_printable(error.get("type", "")))


def validation_problem(errors: list[Any]) -> JSONResponse:
    problems = [_field_problem(e) for e in errors]
    where = "; ".join(f"{'.'.join(str(p) for p in fp.loc[1:]) or fp.loc[0]}: {fp.msg}" for fp in problems[:5])
    more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
    return problem_response(
        422, f"invalid request: {where}{more}", error="RequestValidationError", errors=problems
    )


def install_problem_handlers(app: FastAPI) -> None:
    async def domain(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, CoordinatorError)
        headers = {"WWW-Authenticate": "Bearer"} if isinstance(exc, Unauthorized) else None
        return problem_response(exc.status_code, exc.message, error=type(exc).__name__, headers=headers)

    async def invalid(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        return validation_problem(list(exc.errors()))

    async def http(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, StarletteHTTPException)
        detail = exc.detail if isinstance(exc.detail, str) else HTTPStatus(exc.status_code).phrase
        if exc.status_code == 404 and detail == "Not Found":
            detail = "no such endpoint: see /docs for the API"
        return problem_response(exc.status_code, detail, headers=exc.headers)

    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.error("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
        return problem_response(500, "internal error: the coordinator's log has the details")

    app.add_exception_handler(CoordinatorError, domain)
    app.add_exception_handler(RequestValidationError, invalid)
    app.add_exception_handler(StarletteHTTPException, http)
    app.add_exception_handler(Exception, unexpected)
