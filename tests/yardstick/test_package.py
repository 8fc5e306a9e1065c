"""The package's public door: what `import yardstick` offers and what it does not load."""

from __future__ import annotations

import subprocess
import sys

import pytest

import yardstick

pytestmark = pytest.mark.unit


def test_every_public_name_resolves() -> None:
    for name in yardstick.__all__:
        assert getattr(yardstick, name) is not None, name
    with pytest.raises(AttributeError, match="no attribute 'Clinet'"):
        _ = yardstick.Clinet  # type: ignore[attr-defined]


def test_decorating_a_task_loads_neither_scipy_nor_nats() -> None:
    code = "import sys, yardstick; yardstick.task('x'); print(sorted({'scipy', 'nats'} & set(sys.modules)))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert loaded.stdout.strip() == "[]"
