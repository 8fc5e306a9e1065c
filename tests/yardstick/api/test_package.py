"""``yardstick.api`` and the client load nothing of the server: an application installs the SDK alone."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import yardstick.api

pytestmark = pytest.mark.unit

SERVER = ("services", "shared", "numpy", "scipy", "sqlalchemy")


def _loaded_after(statement: str) -> list[str]:
    code = (
        f"import sys; {statement}; print(sorted({{m.split('.')[0] for m in sys.modules}} & {set(SERVER)!r}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return list(eval(out.stdout))  # a printed list of module names


def test_every_api_module_and_the_client_load_without_the_server() -> None:
    modules = sorted(p.stem for p in Path(yardstick.api.__file__).parent.glob("*.py") if p.stem != "__init__")
    assert "experiments" in modules and "traces" in modules
    imports = "; ".join(f"import yardstick.api.{m}" for m in modules)
    assert _loaded_after(f"{imports}; import yardstick.client, yardstick.task_worker") == []


def test_the_probe_sees_a_server_module_when_one_is_loaded() -> None:
    assert _loaded_after("import shared.contracts") == ["shared"]
