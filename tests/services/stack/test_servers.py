"""Server start-up helpers that need no server."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from services.stack.servers import ensure_runtime_dir

pytestmark = pytest.mark.unit


def test_a_private_runtime_dir_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    private = tmp_path / "run"
    private.mkdir(mode=0o700)
    private.chmod(0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(private))
    assert ensure_runtime_dir() == private
    assert os.environ["XDG_RUNTIME_DIR"] == str(private)


@pytest.mark.parametrize("given", ["shared", "missing", None])
def test_a_shared_or_missing_runtime_dir_is_replaced_by_a_private_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, given: str | None
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)  # like /tmp: platformdirs would warn and fall back
    if given is None:
        monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    else:
        monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / given))
    chosen = ensure_runtime_dir()
    assert chosen == Path(f"/tmp/runtime-{os.getuid()}")
    assert os.environ["XDG_RUNTIME_DIR"] == str(chosen)
    assert chosen.is_dir() and chosen.stat().st_mode & 0o777 == 0o700
