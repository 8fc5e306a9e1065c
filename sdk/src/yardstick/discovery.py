"""Where the coordinator and NATS are: explicit arguments, then the environment, then the state
file of a local stack started with ``yardstick stack up`` (``$YARDSTICK_HOME``, default ``.yardstick``).

The state file is read as a file: nothing of the launcher runs in the SDK.
"""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import BaseModel

from yardstick.api.stack_state import StackState
from yardstick.errors import NotConfigured


class ApiLocation(BaseModel, frozen=True):
    """The coordinator's base URL and the API key sent as ``Authorization: Bearer``."""

    url: str
    api_key: str
    project: str | None = None


def _state_dir() -> Path:
    return Path(os.environ.get("YARDSTICK_HOME", ".yardstick"))


def local_stack() -> StackState | None:
    """The local stack's state file, if one was started here."""
    return StackState.load(_state_dir())


def find_api(url: str | None = None, api_key: str | None = None, project: str | None = None) -> ApiLocation:
    """``url``/``api_key``, else ``YARDSTICK_API_URL``/``YARDSTICK_API_KEY``, else the local stack;
    ``project`` (else ``YARDSTICK_PROJECT``; None: the key's own) is the project requests act in."""
    url = url or os.environ.get("YARDSTICK_API_URL")
    api_key = api_key or os.environ.get("YARDSTICK_API_KEY")
    if not (url and api_key):
        state = local_stack()
        url = url or (state.api_url if state else None)
        api_key = api_key or (state.api_key if state else None)
    if not (url and api_key):
        raise NotConfigured(
            "no coordinator found: start the local stack with `yardstick stack up`, set "
            "YARDSTICK_API_URL and YARDSTICK_API_KEY, or pass Client(url=..., api_key=...)"
        )
    project = project or os.environ.get("YARDSTICK_PROJECT") or None
    return ApiLocation(url=url.rstrip("/"), api_key=api_key, project=project)
