"""Where the coordinator and NATS are: explicit arguments, then the environment, then a local stack
started with ``yardstick stack up`` (``$YARDSTICK_HOME/stack.json`` alone when it is set; else
``./.yardstick/stack.json``, then the per-user ``$XDG_STATE_HOME/yardstick/stack.json``: see
:mod:`yardstick.api.stack_location`).

Rules: what is given explicitly wins over the environment, which wins over any file; a stale file
(its stack's process is gone) is not used; "not found" lists every place looked at, in order, and
what to set. The state files are read as files: nothing of the launcher runs in the SDK.
"""

from __future__ import annotations

import os

from pydantic import BaseModel

from yardstick.api.stack_location import StackLocation, find_stack
from yardstick.errors import NotConfigured


class ApiLocation(BaseModel, frozen=True):
    """The coordinator's base URL and the API key sent as ``Authorization: Bearer``."""

    url: str
    api_key: str
    project: str | None = None


def local_stack(looked: list[str] | None = None) -> StackLocation | None:
    """The running local stack this process finds (see the module docstring); None if there is none,
    with what each place held appended to ``looked``."""
    return find_stack(looked if looked is not None else [])


def _not_found(what: str, looked: list[str], to_set: str) -> NotConfigured:
    places = "\n".join(f"  {i}. {place}" for i, place in enumerate(looked, 1))
    return NotConfigured(
        f"no {what} found; looked at, in order:\n{places}\n"
        f"Start the local stack with `yardstick stack up` (from any folder), or {to_set}"
    )


def find_api(url: str | None = None, api_key: str | None = None, project: str | None = None) -> ApiLocation:
    """``url``/``api_key``, else ``YARDSTICK_API_URL``/``YARDSTICK_API_KEY``, else the local stack;
    ``project`` (else ``YARDSTICK_PROJECT``; None: the key's own) is the project requests act in."""
    env_set = bool(os.environ.get("YARDSTICK_API_URL") and os.environ.get("YARDSTICK_API_KEY"))
    looked = [
        f"the arguments url/api_key ({'given' if url and api_key else 'not both given'})",
        f"YARDSTICK_API_URL and YARDSTICK_API_KEY ({'set' if env_set else 'not both set'})",
    ]
    url = url or os.environ.get("YARDSTICK_API_URL")
    api_key = api_key or os.environ.get("YARDSTICK_API_KEY")
    if not (url and api_key):
        state = local_stack(looked)
        url = url or (state.api_url if state else None)
        api_key = api_key or (state.api_key if state else None)
    if not (url and api_key):
        raise _not_found(
            "coordinator",
            looked,
            "set YARDSTICK_API_URL and YARDSTICK_API_KEY (or YARDSTICK_HOME to the stack's folder), "
            "or pass Client(url=..., api_key=...)",
        )
    project = project or os.environ.get("YARDSTICK_PROJECT") or None
    return ApiLocation(url=url.rstrip("/"), api_key=api_key, project=project)


def find_nats_stack() -> StackLocation:
    """The local stack whose NATS a task worker joins when ``NATS_URL`` is not set;
    :class:`NotConfigured` listing where it looked when there is none."""
    looked = ["NATS_URL (not set, nor in ./.env)"]
    state = local_stack(looked)
    if state is None:
        raise _not_found(
            "NATS server",
            looked,
            "set NATS_URL (and NATS_NAMESPACE) to the stack's, or YARDSTICK_HOME to the stack's folder",
        )
    return state
