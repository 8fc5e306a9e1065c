from __future__ import annotations

import pytest

from services.cli.consoles import PIPE_WIDTH, stderr_console, stdout_console

pytestmark = pytest.mark.unit


def test_output_that_is_not_a_terminal_gets_wide_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)  # pytest captures both streams: neither is a tty
    assert stdout_console().width == PIPE_WIDTH
    assert stderr_console().width == PIPE_WIDTH


def test_columns_in_the_environment_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "93")
    assert stdout_console().width == 93
    assert stderr_console().width == 93
