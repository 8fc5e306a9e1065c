"""Server data of the stack tests lives outside pytest's basetemp: pytest keeps only the newest few
``pytest-of-USER/pytest-N`` folders of the machine and deletes older ones, so another pytest session
started meanwhile (a second checkout, a developer's run beside CI) would delete a live PostgreSQL's
files under a running test."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def server_dir() -> Iterator[Path]:
    root = Path(tempfile.mkdtemp(prefix="yardstick-stack-test-"))
    yield root
    shutil.rmtree(root, ignore_errors=True)
