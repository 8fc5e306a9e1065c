"""Domain errors, mapped to HTTP status codes once (see ``install_error_handlers``)."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse


class CoordinatorError(Exception):
    status_code = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class DatasetNotFound(CoordinatorError):
    status_code = 404


class DatasetVersionNotFound(CoordinatorError):
    status_code = 404


class ExperimentNotFound(CoordinatorError):
    status_code = 404


class ComparisonNotFound(CoordinatorError):
    status_code = 404


class BaselineNotFound(CoordinatorError):
    status_code = 422


class UnknownEvaluatorError(CoordinatorError):
    status_code = 422


class ExperimentNotComplete(CoordinatorError):
    status_code = 409


class ExperimentNotCancellable(CoordinatorError):
    status_code = 409


class InvalidComparison(CoordinatorError):
    status_code = 422


class Unauthorized(CoordinatorError):
    status_code = 401


def install_error_handlers(app: FastAPI) -> None:
    async def handle(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, CoordinatorError)
        headers = {"WWW-Authenticate": "Bearer"} if isinstance(exc, Unauthorized) else None
        return JSONResponse(
            {"detail": exc.message, "error": type(exc).__name__}, status_code=exc.status_code, headers=headers
        )

    app.add_exception_handler(CoordinatorError, handle)
