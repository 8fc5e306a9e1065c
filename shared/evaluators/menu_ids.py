"""The set of valid item ids of a menu file (cached per path and modification time)."""

from __future__ import annotations

import functools
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

# The repository root (not ``shared.__file__``: an editable install may load ``shared`` as a
# namespace package, whose ``__file__`` is None).
REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_MENU_PATH = REPO_ROOT / "datasets" / "drive-thru" / "menu.json"


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
        path = REPO_ROOT / path
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


def menu_item_ids(menu_path: str | Path | None = None) -> frozenset[str]:
    """Item ids on the menu at ``menu_path`` (default ``datasets/drive-thru/menu.json``).

    Relative paths are resolved from the repository root. Reloaded only when the file changes.
    """
    path = resolve_menu_path(menu_path)
    try:
        mtime = path.stat().st_mtime_ns
    except OSError as exc:
        raise MenuNotFound(
            f"menu file {path} not found; pass menu_path=… or valid_item_ids=[…] to the evaluator"
        ) from exc
    return _load(path, mtime)
