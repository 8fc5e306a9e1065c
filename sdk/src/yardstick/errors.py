"""What the SDK raises: every message says what was wrong and what to do."""

from __future__ import annotations


class YardstickError(RuntimeError):
    """Base class of the SDK's errors."""


class ApiError(YardstickError):
    """The coordinator answered with an error, or could not be reached (``status`` is then None)."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class NotConfigured(YardstickError):
    """No coordinator (or NATS server) was given and none could be found."""


class MissingDependency(YardstickError):
    """An optional package (pandas) is needed for this call and is not installed."""


class TaskLoadError(YardstickError):
    """``module:function`` does not name a task function that can be served."""
