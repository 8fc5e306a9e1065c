"""The ORM and the documents it stores load without the statistics stack (issue 22): a process that
only reads rows does not pay for SciPy."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = pytest.mark.unit


def test_loading_the_orm_imports_no_statistics() -> None:
    heavy = ("scipy", "numpy", "shared.analysis", "shared.analysis.stats")
    probe = f"import sys, shared.db.models; print(','.join(m for m in {heavy!r} if m in sys.modules))"
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert loaded.stdout.strip() == ""
