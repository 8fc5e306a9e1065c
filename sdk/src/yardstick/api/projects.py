"""Projects: the name every project-owned row carries, the one that exists from the start, and the
bodies of ``/projects``. Pure data: no I/O."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

DEFAULT_PROJECT = "default"
"""Created by migration 0010 (everything from before projects lives there); the project of the key
``yardstick stack up`` creates, and the default of every service that reports traffic."""

PROJECT_HEADER = "X-Yardstick-Project"
"""The request header naming the project an API call acts in (default: the key's own)."""

PROJECT_ID_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,63}$"
"""A project's name is its id: lower-case letters, digits, ``-`` and ``_``; at most 64 characters
(the migration's CHECK constraint says the same)."""


class ProjectCreate(BaseModel):
    """``POST /projects``: a new project (owner keys only)."""

    name: str = Field(
        pattern=PROJECT_ID_PATTERN,
        description="The project's name, also its id: lower-case letters, digits, '-' and '_', at most 64",
    )
    description: str = Field(default="", max_length=2000)


class ProjectOut(BaseModel):
    name: str
    description: str
    created_at: datetime
