"""The shipped data is found through the package, not the current folder, and the server's
distribution ships every file of it."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import shared.shipped_data
from services.agent.settings import DEFAULT_MENU_PATH
from services.cli import demo_cmd, demo_prompts, traffic_cmd
from services.search_proxy.settings import DEFAULT_CORPUS
from shared.evaluators.menu_ids import DEFAULT_MENU_PATH as EVALUATOR_MENU
from shared.evaluators.menu_ids import resolve_menu_path

pytestmark = pytest.mark.unit

PACKAGE = Path(shared.shipped_data.__file__).parent
REPO = Path(__file__).resolve().parents[2]


def test_every_path_the_server_reads_is_a_file_inside_the_package() -> None:
    paths = [
        DEFAULT_MENU_PATH,
        EVALUATOR_MENU,
        traffic_cmd.DEFAULT_MENU,
        DEFAULT_CORPUS,
        demo_cmd.DRIVE_THRU,
        demo_cmd.GOLDEN,
        demo_cmd.RAG_GOLDEN,
        demo_cmd.SCENARIOS,
        demo_cmd.CONVERSATIONS,
    ]
    for path in paths:
        assert path.is_absolute() and path.is_file(), path
        assert path.is_relative_to(PACKAGE), path
    assert demo_prompts.PROMPTS.is_dir() and demo_prompts.PROMPTS.is_relative_to(PACKAGE)
    assert resolve_menu_path("datasets/drive-thru/menu.json") == shared.shipped_data.MENU


def test_the_paths_do_not_depend_on_the_current_folder(tmp_path: Path) -> None:
    code = "from shared.shipped_data import MENU; print(MENU)"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    menu = Path(out.stdout.strip())
    assert menu == shared.shipped_data.MENU and menu.is_file()
    assert not menu.is_relative_to(tmp_path)


def test_the_distribution_ships_every_data_file() -> None:
    package_data = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    patterns = package_data["shared.shipped_data"]
    shipped = {path for pattern in patterns for path in PACKAGE.glob(pattern)}  # as setuptools globs them
    files = {path for path in (PACKAGE / "datasets").rglob("*") if path.is_file()}
    assert shared.shipped_data.MENU in files
    assert sorted(files - shipped) == []


def test_the_checkout_s_datasets_folder_is_the_shipped_one() -> None:
    assert (REPO / "datasets").resolve() == shared.shipped_data.DATASETS.resolve()
