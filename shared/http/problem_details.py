"""RFC 9457 problem details: the one error shape of Yardstick's HTTP APIs.

``{"type", "title", "status", "detail", "error", "errors"}`` as ``application/problem+json``:
``detail`` is one human sentence (what was wrong, what to do), ``error`` the error's name,
``errors`` the field-level problems of a validation error, each with its location.
"""

from __future__ import annotations

from collections.abc import Mapping
from http import HTTPStatus

from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

PROBLEM_MEDIA_TYPE = "application/problem+json"


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
