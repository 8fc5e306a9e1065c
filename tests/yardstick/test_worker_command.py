"""``yardstick-worker``, the SDK's task worker command: what it says when there is nothing to serve
or no stack to serve it on (the serving itself is the CLI's ``yardstick worker``, tested there)."""

from pathlib import Path

import pytest

from yardstick.worker_command import main

pytestmark = pytest.mark.unit


def test_no_stack_anywhere_exits_3_saying_where_it_looked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NATS_URL", raising=False)
    monkeypatch.delenv("YARDSTICK_HOME", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert main(["my_app"]) == 3
    said = capsys.readouterr().err
    assert said.startswith("error: ") and str(tmp_path / "state") in said


def test_a_module_that_does_not_exist_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NATS_URL", "nats://127.0.0.1:1")  # given: no discovery, nothing dialled yet
    assert main(["no_such_module_here"]) == 2
    assert "no_such_module_here" in capsys.readouterr().err
