"""``yardstick datasets push`` refuses a misspelt item field before it needs a server: exit 2 with one
sentence naming the item (from 1, with its line), the field and the closest known name."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from services.cli.app import app as cli

pytestmark = pytest.mark.unit

NO_SERVER = {"YARDSTICK_API_URL": "http://127.0.0.1:9", "YARDSTICK_API_KEY": "unused", "COLUMNS": "400"}


def test_a_misspelt_item_field_exits_2_with_the_sentence_and_no_traceback(tmp_path: Path) -> None:
    path = tmp_path / "typo.jsonl"
    path.write_text(
        '{"id": "a", "input": {}}\n{"id": "b", "input": {}, "expected_ouput": {}}\n', encoding="utf-8"
    )
    result = CliRunner().invoke(cli, ["datasets", "push", str(path)], env=NO_SERVER)
    assert result.exit_code == 2, result.output
    assert (
        "item 2 (line 2): unknown field 'expected_ouput'; did you mean 'expected_output'? "
        "Put extra data under 'metadata'." in result.output
    )
    assert "Traceback" not in result.output and "Extra inputs" not in result.output
