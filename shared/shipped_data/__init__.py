"""The data files the server ships, found through the installed package (never the current folder):
the drive-thru menu and prompts, the demo's datasets, the search corpus. An installed server runs
``yardstick stack up`` and ``yardstick demo`` from any folder.

The files live in this package's ``datasets/`` folder (package data of the server's distribution); a
checkout's top-level ``datasets`` is a link to it, so the paths the docs give (``datasets/drive-thru/
order-correctness-v1.yaml``) work from the repository root.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

DATASETS = Path(str(files(__name__) / "datasets"))
DRIVE_THRU = DATASETS / "drive-thru"
SEARCH = DATASETS / "search"
MENU = DRIVE_THRU / "menu.json"
"""The drive-thru menu: the agent's offer and the menu evaluators' ids."""

__all__ = ["DATASETS", "DRIVE_THRU", "MENU", "SEARCH"]
