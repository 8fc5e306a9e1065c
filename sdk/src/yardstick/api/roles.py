"""What an API key may do: its role. One definition, read by the coordinator (each route declares
the role it needs), the CLI and the SDK.

- ``owner``: everything, the whole instance (the key ``yardstick stack up`` creates);
- ``admin``: everything, keys included (within one project once projects exist);
- ``runner``: run, rescore, cancel and compare experiments, push datasets and prompts, promote
  traffic, and read (a CI job's key);
- ``viewer``: read only;
- ``ingest``: send production traffic only, nothing else, not even reads (an application's key).

``owner > admin > runner > viewer`` each include the ones below; ``ingest`` is apart: only
``ingest``, ``admin`` and ``owner`` may send traffic. Pure data: no I/O.
"""

from __future__ import annotations

from enum import StrEnum


class Role(StrEnum):
    OWNER = "owner"
    ADMIN = "admin"
    RUNNER = "runner"
    VIEWER = "viewer"
    INGEST = "ingest"

    def grants(self, needed: Role) -> bool:
        """Whether a key of this role may do what ``needed`` is declared for."""
        if needed is Role.INGEST:
            return self in (Role.INGEST, Role.ADMIN, Role.OWNER)
        return self in _RANKED and _RANKED.index(self) <= _RANKED.index(needed)

    def may_create(self, role: Role) -> bool:
        """Whether a key of this role may create a key of ``role`` (never one above its own)."""
        if self is Role.OWNER:
            return True
        return self is Role.ADMIN and role is not Role.OWNER


_RANKED = (Role.OWNER, Role.ADMIN, Role.RUNNER, Role.VIEWER)
ROLE_VALUES = tuple(role.value for role in Role)
