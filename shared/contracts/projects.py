"""Projects: the name every project-owned row carries, and the one that exists from the start.
Pure data: no I/O."""

from __future__ import annotations

DEFAULT_PROJECT = "default"
"""Created by migration 0010 (everything from before projects lives there); the project of the key
``yardstick stack up`` creates, and the default of every service that reports traffic."""

PROJECT_HEADER = "X-Yardstick-Project"
"""The request header naming the project an API call acts in (default: the key's own)."""

PROJECT_ID_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,63}$"
"""A project's name is its id: lower-case letters, digits, ``-`` and ``_``; at most 64 characters
(the migration's CHECK constraint says the same)."""
