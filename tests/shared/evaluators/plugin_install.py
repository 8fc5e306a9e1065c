"""Install the evaluator package in ``plugin_package/`` for real: build a wheel (no build backend
is needed for a wheel), ``pip install --target`` it into a temporary folder, put that folder on
``sys.path``; its ``yardstick.evaluators`` entry points are then found by importlib.metadata."""

from __future__ import annotations

import base64
import hashlib
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from shared.evaluators.loading import add_module
from shared.evaluators.plugins import load_entry_points
from shared.evaluators.registry import EvaluatorRegistry
from tests.evaluator_registry import REGISTRY

SOURCE = Path(__file__).parent / "plugin_package"
PACKAGE = "yardstick_demo_evaluators"
DIST = "yardstick_demo_evaluators-0.1.0"
ENTRY_POINTS = """[yardstick.evaluators]
demo_length = yardstick_demo_evaluators.length:output_length
demo_keywords = yardstick_demo_evaluators.keywords
"""
PLUGIN_EVALUATORS = ("demo_length", "demo_said_ok", "toxicity_probe")


def _digest(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def build_wheel(folder: Path) -> Path:
    files = {
        str(path.relative_to(SOURCE)): path.read_bytes() for path in sorted((SOURCE / PACKAGE).glob("*.py"))
    }
    files[f"{DIST}.dist-info/METADATA"] = (
        b"Metadata-Version: 2.1\nName: yardstick-demo-evaluators\nVersion: 0.1.0\n"
    )
    files[f"{DIST}.dist-info/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: yardstick-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
    files[f"{DIST}.dist-info/entry_points.txt"] = ENTRY_POINTS.encode()
    record = "".join(f"{name},{_digest(data)},{len(data)}\n" for name, data in files.items())
    wheel = folder / f"{DIST}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
        archive.writestr(f"{DIST}.dist-info/RECORD", record + f"{DIST}.dist-info/RECORD,,\n")
    return wheel


def install(folder: Path) -> Path:
    """``pip install --target`` the wheel; returns the folder to put on ``sys.path``."""
    target = folder / "site"
    wheel = build_wheel(folder)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--no-index",
            "--target",
            str(target),
            str(wheel),
        ],
        check=True,
    )
    return target


def load_plugins_into(registry: EvaluatorRegistry) -> list[str]:
    """The installed entry points loaded into ``registry`` (what a service does at start-up)."""
    return load_entry_points(registry, lambda module: add_module(registry, module, module.__name__))


@pytest.fixture
def installed_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The package installed and importable; afterwards the process registry and the imported
    modules are as before."""
    target = install(tmp_path)
    monkeypatch.syspath_prepend(str(target))
    entries, errors = dict(REGISTRY._entries), list(REGISTRY.plugin_errors)
    yield target
    REGISTRY._entries, REGISTRY.plugin_errors = entries, errors
    for module in [m for m in sys.modules if m == PACKAGE or m.startswith(f"{PACKAGE}.")]:
        del sys.modules[module]
