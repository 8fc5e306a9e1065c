"""The coordinator as the CLI reaches it: the SDK's typed :class:`yardstick.Client` (the CLI has no HTTP
client of its own), and the one way a command turns a refused request into a sentence and exit 2.

The client is imported when a command connects, not when the CLI loads: it brings the API's models
(and NumPy/SciPy through them), which `yardstick --help` should not wait for."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer
from pydantic import ValidationError

from services.cli.consoles import stderr_console
from yardstick.api.validation_messages import describe_errors
from yardstick.errors import ApiError, NotConfigured

if TYPE_CHECKING:
    from yardstick.client import Client

__all__ = ["ApiError", "connect", "fail"]

_project: str | None = None


def use_project(project: str | None) -> None:
    """The project every command's calls act in (``yardstick --project NAME …``)."""
    global _project
    _project = project


def selected_project() -> str | None:
    return _project


def connect() -> Client:
    """A client for the coordinator in ``YARDSTICK_API_URL``/``YARDSTICK_API_KEY``, else the local
    stack's, acting in the ``--project`` given (else ``YARDSTICK_PROJECT``, else the key's own);
    :class:`ApiError` saying where it looked and what to set when there is neither."""
    from yardstick.client import Client

    try:
        return Client(project=_project)
    except NotConfigured as exc:
        raise ApiError(str(exc)) from exc


def sentence(exc: Exception) -> str:
    """What went wrong in one line: a request the client refused before sending it reads like the
    API's own refusal (``field: message; …``)."""
    if isinstance(exc, ValidationError):
        return "; ".join(describe_errors(exc))
    return str(exc)


def fail(exc: Exception) -> typer.Exit:
    """Print ``exc`` as the CLI's error line; the ``typer.Exit(2)`` to raise (a usage error)."""
    stderr_console().print(f"[red]error:[/red] {sentence(exc)}")
    return typer.Exit(2)
