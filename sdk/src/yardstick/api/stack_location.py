"""Where a local stack started with ``yardstick stack up`` runs, and how a client finds it from any folder.

Two files say it, looked at in this order (``stack_files``):

1. the stack's own state file, ``.yardstick/stack.json`` in the folder it was started from (the
   launcher's full record; only the fields below are read here);
2. the per-user file ``$XDG_STATE_HOME/yardstick/stack.json`` (default
   ``~/.local/state/yardstick/stack.json``): a :class:`StackLocation` that ``stack up`` writes
   (atomically, mode 0600: it holds the CLI's API key, as the stack's own file does) and ``stack down``
   removes, so that the CLI, the SDK and ``yardstick worker`` find the stack from any folder.

``$YARDSTICK_HOME`` overrides both: when it is set, ``$YARDSTICK_HOME/stack.json`` is the only file
read and no per-user file is written. A file whose process is gone (``pid`` not running) is stale: it
is reported as such and not used. Explicit arguments and ``YARDSTICK_API_URL``/``NATS_URL`` are
looked at before any file (by the callers, :mod:`yardstick.discovery` and
:mod:`yardstick.worker_settings`).

Only the standard library and pydantic: the launcher imports this model to write the file, the SDK
to read it, and the SDK ships without the server.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

STATE_FILE = "stack.json"


class StackLocation(BaseModel):
    """Where one local stack runs: what a client needs to reach it (the per-user file's content)."""

    model_config = ConfigDict(extra="forbid")  # the stack's own, larger state file is told apart

    schema_version: Literal[1] = 1
    state_dir: str = Field(description="The stack's folder (its state file, logs and data)")
    pid: int | None = Field(default=None, description="The coordinator's process; None: not known")
    api_url: str | None = Field(default=None, description="The coordinator's HTTP API")
    api_key: str | None = Field(default=None, description="The CLI's key (the file is mode 0600)")
    nats_url: str = Field(description="NATS of the stack (its cluster's nodes separated by commas)")
    namespace: str = Field(description="NATS_NAMESPACE of the stack's services")
    otlp_url: str | None = Field(default=None, description="The ingest service's OTLP/HTTP endpoint")
    started_at: datetime

    def running(self) -> bool:
        """False when the recorded process is gone (the file is stale); True when it runs or no
        process was recorded."""
        if self.pid is None:
            return True
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:  # it runs, as another user
            return True
        return True


class _RecordedProcess(BaseModel):
    name: str
    pid: int


class _StackStateView(BaseModel):
    """The fields of the launcher's own ``.yardstick/stack.json`` a client reads (the rest is ignored)."""

    state_dir: str
    nats_url: str
    namespace: str
    started_at: datetime
    api_url: str | None = None
    api_key: str | None = None
    otlp_url: str | None = None
    processes: list[_RecordedProcess] = Field(default_factory=list)

    def location(self) -> StackLocation:
        coordinator = next((p.pid for p in self.processes if p.name == "coordinator"), None)
        return StackLocation(
            state_dir=self.state_dir,
            pid=coordinator,
            api_url=self.api_url,
            api_key=self.api_key,
            nats_url=self.nats_url,
            namespace=self.namespace,
            otlp_url=self.otlp_url,
            started_at=self.started_at,
        )


def location_of_state(state_json: str) -> StackLocation:
    """The location a stack's own state file (its JSON) records."""
    return _StackStateView.model_validate_json(state_json).location()


def user_state_file(env: Mapping[str, str] = os.environ) -> Path | None:
    """The per-user file; None when ``YARDSTICK_HOME`` is set (that folder alone is then used)."""
    if env.get("YARDSTICK_HOME"):
        return None
    base = env.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "yardstick" / STATE_FILE


def stack_files(env: Mapping[str, str] = os.environ) -> list[Path]:
    """Where a stack is looked for, in order: ``$YARDSTICK_HOME/stack.json`` alone when it is set;
    else ``./.yardstick/stack.json``, then the per-user file."""
    if home := env.get("YARDSTICK_HOME"):
        return [Path(home) / STATE_FILE]
    user = user_state_file(env)
    return [Path(".yardstick") / STATE_FILE, *([user] if user is not None else [])]


def read_location(path: Path) -> StackLocation | None:
    """The stack a file records (the per-user file or a stack's own); None when there is none.
    ``ValueError`` naming the file when it is not one of them."""
    try:
        text = path.read_text()
    except FileNotFoundError:
        return None
    try:
        return StackLocation.model_validate_json(text)
    except ValidationError:
        pass
    try:
        return location_of_state(text)
    except ValidationError as exc:
        raise ValueError(f"{path} is not a stack's state file: {exc.error_count()} errors") from exc


def find_stack(looked: list[str], env: Mapping[str, str] = os.environ) -> StackLocation | None:
    """The first running stack of :func:`stack_files`; says in ``looked`` what each file held."""
    for path in stack_files(env):
        shown = path.absolute()
        try:
            location = read_location(path)
        except ValueError as exc:
            looked.append(f"{shown} (unreadable: {exc})")
            continue
        if location is None:
            looked.append(f"{shown} (missing)")
        elif not location.running():
            looked.append(
                f"{shown} (stale: the stack started in {location.state_dir} on "
                f"{location.started_at:%Y-%m-%d %H:%M} is not running, pid {location.pid} is gone)"
            )
        else:
            return location
    return None


def write_user_location(location: StackLocation, path: Path) -> None:
    """Write the per-user file atomically (a temporary file renamed over it), mode 0600."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(location.model_dump_json(indent=2))
    tmp.replace(path)


def remove_user_location(path: Path, state_dir: str) -> bool:
    """Remove the per-user file if it records the stack of ``state_dir`` (not another one started
    since); True if it was removed."""
    try:
        location = read_location(path)
    except ValueError:
        location = None
    if location is None or Path(location.state_dir).resolve() != Path(state_dir).resolve():
        return False
    path.unlink(missing_ok=True)
    return True
