"""The `yardstick` entry point stays quick to start: every invocation imports every command module,
so those modules leave the heavy libraries to the commands that use them."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("scipy", "numpy", "sqlalchemy", "psycopg", "alembic", "langchain_core", "langgraph", "nats")


@pytest.mark.unit
def test_loading_the_cli_imports_no_heavy_library() -> None:
    probe = f"import sys, services.cli.app; print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    ).stdout.strip()
    assert loaded == "", f"`import services.cli.app` loads {loaded}: import them inside the command"
