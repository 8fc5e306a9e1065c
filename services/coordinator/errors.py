"""Domain errors, each with its HTTP status: problem details, rendered by the handlers
``shared.http.problem_details.install_problem_handlers`` installs on every HTTP service."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from shared.http.problem_details import ProblemError


class CoordinatorError(ProblemError):
    """A request the coordinator refuses (its status and a sentence saying what to do)."""


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


class UnknownItems(CoordinatorError):
    status_code = 422


class InvalidItems(CoordinatorError):
    """Items that do not have the shape their dataset's kind needs (a ``conversation`` set)."""

    status_code = 422


class TooManyTasks(CoordinatorError):
    status_code = 422


class DeletionRefused(CoordinatorError):
    status_code = 409


class ExperimentNotComplete(CoordinatorError):
    status_code = 409


class IllegalTransition(CoordinatorError):
    """A status change the experiment lifecycle's transition table refuses."""

    status_code = 409


class ExperimentNotCancellable(IllegalTransition):
    status_code = 409


class InvalidComparison(CoordinatorError):
    status_code = 422


class InvalidPlan(CoordinatorError):
    status_code = 422


class Unauthorized(CoordinatorError):
    status_code = 401
    headers: ClassVar[Mapping[str, str]] = {"WWW-Authenticate": "Bearer"}


class Forbidden(CoordinatorError):
    """The key is valid but its role does not allow this."""

    status_code = 403


class NoTaskWorker(CoordinatorError):
    """An experiment names a python target that no running task worker serves."""

    status_code = 422


class TargetAddressRefused(CoordinatorError):
    """An http target whose host is an address the outbound guard refuses (TARGET_ALLOWED_NETWORKS)."""

    status_code = 422


class ProjectNotFound(CoordinatorError):
    """No such project, or not one this key may act in (the same answer: ids never leak)."""

    status_code = 404


class ProjectExists(CoordinatorError):
    status_code = 409
