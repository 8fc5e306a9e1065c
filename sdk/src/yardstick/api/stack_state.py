"""What an application reads of a local stack's state file (``$YARDSTICK_HOME/stack.json``, written by
``yardstick stack up``): where the coordinator and NATS are, the CLI's key and the namespace.

Only the fields an application needs: the launcher's own record (processes, server nodes, ports)
extends this shape on the server side, and the fields read here are never renamed there.
"""

from __future__ import annotations

from pathlib import Path
from typing import Self

from pydantic import BaseModel, Field


class StackState(BaseModel):
    state_dir: str
    nats_url: str
    namespace: str
    api_url: str | None = None
    api_key: str | None = Field(default=None, description="The CLI's key (file is mode 0600)")

    @staticmethod
    def path(state_dir: Path) -> Path:
        return state_dir / "stack.json"

    @classmethod
    def load(cls, state_dir: Path) -> Self | None:
        path = cls.path(state_dir)
        if not path.exists():
            return None
        return cls.model_validate_json(path.read_text())
