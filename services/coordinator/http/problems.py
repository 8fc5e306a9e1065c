"""The API's error answers as the OpenAPI document declares them: every error is RFC 9457 problem
details (``shared.http.problem_details``, installed on the app by ``install_problem_handlers``)."""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

from pydantic import BaseModel

from shared.http.problem_details import PROBLEM_MEDIA_TYPE, Problem


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
