"""The set of valid item ids of a menu file (cached per path and modification time)."""

from __future__ import annotations

import functools
import time
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from shared.shipped_data import DATASETS, MENU

# The repository root (not ``shared.__file__``: an editable install may load ``shared`` as a
# namespace package, whose ``__file__`` is None).
DEFAULT_MENU_PATH = MENU


class MenuNotFound(FileNotFoundError):
    """The menu file needed to validate item ids does not exist or cannot be read."""


class _MenuItem(BaseModel):
    model_config = ConfigDict(extra="allow")
    item_id: str


class _Menu(BaseModel):
    model_config = ConfigDict(extra="allow")
    items: list[_MenuItem]


def resolve_menu_path(menu_path: str | Path | None) -> Path:
    path = Path(menu_path) if menu_path is not None else DEFAULT_MENU_PATH
    if not path.is_absolute():
        path = DATASETS.parent / path  # datasets/drive-thru/menu.json: the shipped one
    return path


@functools.lru_cache(maxsize=16)
def _load(path: Path, mtime_ns: int) -> frozenset[str]:
    try:
        menu = _Menu.model_validate_json(path.read_bytes())
    except ValidationError as exc:
        raise MenuNotFound(
            f"menu file {path} is not a menu ({{'items': [{{'item_id': …}}]}}): {exc}"
        ) from exc
    return frozenset(item.item_id for item in menu.items)


STAT_EVERY_S = 1.0
"""How often a menu file's modification time is looked at again: an edit is seen within a second,
and a worker scoring thousands of items a second does not stat the file for each."""

_clock = time.monotonic
_checked: dict[Path, tuple[float, frozenset[str]]] = {}
"""path -> (monotonic time of its last stat, its ids then)."""


def menu_item_ids(menu_path: str | Path | None = None) -> frozenset[str]:
    """Item ids on the menu at ``menu_path`` (default ``datasets/drive-thru/menu.json``).

    Relative paths are resolved from the repository root. Reloaded when the file changes, seen
    within :data:`STAT_EVERY_S`.
    """
    path = resolve_menu_path(menu_path)
    now = _clock()
    checked = _checked.get(path)
    if checked is not None and now - checked[0] < STAT_EVERY_S:
        return checked[1]
    try:
        mtime = path.stat().st_mtime_ns
    except OSError as exc:
        _checked.pop(path, None)
        raise MenuNotFound(
            f"menu file {path} not found; pass menu_path=… or valid_item_ids=[…] to the evaluator"
        ) from exc
    ids = _load(path, mtime)
    _checked[path] = (now, ids)
    return ids
