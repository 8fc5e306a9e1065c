"""An experiment named on the command line: its id, or its name (the newest run of that name)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from services.cli.coordinator import ApiError

if TYPE_CHECKING:
    from yardstick.client import Client

_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.IGNORECASE)


def is_experiment_id(ref: str) -> bool:
    return bool(_UUID.match(ref))


def resolve_experiment(client: Client, ref: str, *, completed: bool = False) -> str:
    """``ref`` as an experiment id: an id is kept, a name becomes its newest run's id (its newest
    completed run's with ``completed``)."""
    if is_experiment_id(ref):
        return ref
    rows = list(client.list_experiments(name=ref, limit=20))
    if completed:
        rows = [r for r in rows if r.status == "completed"]
    if not rows:
        state = "completed experiment" if completed else "experiment"
        raise ApiError(f"no {state} named {ref!r}; `yardstick experiments list` shows what there is")
    return rows[0].id
