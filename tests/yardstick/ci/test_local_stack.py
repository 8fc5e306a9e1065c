"""Mode local: ``stack up`` before, ``stack down`` after, whatever happened (a fake CLI records)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from yardstick.ci.local_stack import LocalStack, StackStartError

pytestmark = pytest.mark.unit

FAKE_CLI = """
import sys
from pathlib import Path
log = Path(sys.argv[1])
with log.open("a") as out:
    out.write(" ".join(sys.argv[2:]) + "\\n")
sys.exit(1 if sys.argv[2:] == ["stack", "up"] and Path(sys.argv[1] + ".fail").exists() else 0)
"""


def fake_cli(tmp_path: Path) -> tuple[list[str], Path]:
    (tmp_path / "fake_cli.py").write_text(FAKE_CLI)
    log = tmp_path / "calls"
    return [sys.executable, str(tmp_path / "fake_cli.py"), str(log)], log


def test_the_stack_is_stopped_even_when_the_run_fails(tmp_path: Path) -> None:
    command, log = fake_cli(tmp_path)
    with pytest.raises(RuntimeError, match="the run broke"), LocalStack(command):
        assert log.read_text() == "stack up\n"
        raise RuntimeError("the run broke")
    assert log.read_text() == "stack up\nstack down\n"


def test_a_stack_that_does_not_start_is_cleaned_up_and_reported(tmp_path: Path) -> None:
    command, log = fake_cli(tmp_path)
    Path(f"{log}.fail").touch()
    with pytest.raises(StackStartError, match="`yardstick stack up` failed"), LocalStack(command):
        pytest.fail("the body must not run")
    assert log.read_text() == "stack up\nstack down\n"
