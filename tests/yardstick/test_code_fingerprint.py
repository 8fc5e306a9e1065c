"""What a task worker's code fingerprint hashes, and the cheap check that its files changed."""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

import pytest

from yardstick import task
from yardstick.code_fingerprint import SourceWatch, short, task_source_files

pytestmark = pytest.mark.unit


@task("fingerprinted")
def fingerprinted(input: dict[str, object]) -> str:
    return "x"


def test_the_fingerprint_is_sha256_of_each_file_name_and_bytes(tmp_path: Path) -> None:
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("A = 1\n")
    b.write_text("B = 2\n")
    expected = hashlib.sha256(b"a.py\0A = 1\n\0b.py\0B = 2\n\0").hexdigest()
    assert SourceWatch([a, b]).fingerprint == expected
    assert short(expected) == expected[:12] and short(None) == "unknown"
    assert SourceWatch([]).fingerprint is None


def test_the_files_hashed_are_those_of_the_modules_defining_the_tasks() -> None:
    assert task_source_files([fingerprinted]) == [Path(__file__).resolve()]
    assert Path(sys.modules[__name__].__file__ or "") == Path(__file__)


def test_a_touch_is_no_change_an_edit_or_a_removal_is(tmp_path: Path) -> None:
    app = tmp_path / "app.py"
    app.write_text("x = 1\n")
    watch = SourceWatch([app])
    assert watch.changed() == []
    os.utime(app, ns=(1, 1))  # same bytes, other mtime: re-hashed, unchanged
    assert watch.changed() == []
    app.write_text("x = 2\n")
    os.utime(app, ns=(1, 1))  # same size and mtime as last seen: the cheap check cannot see it
    assert watch.changed() == []
    os.utime(app, ns=(2, 2))
    assert watch.changed() == [app]
    app.unlink()
    assert watch.changed() == [app]
