"""``yardstick score`` over JSONL files, via Typer's CliRunner (no servers)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from services.cli.score import score_command

pytestmark = pytest.mark.unit

app = typer.Typer()
app.command()(score_command)
runner = CliRunner()

ORDER = {"item_id": "hash-browns", "name": "Hash Browns", "quantity": 2, "size": "regular", "modifiers": []}


def write(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "items.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def record(**fields: Any) -> str:
    return json.dumps(fields)


def test_scores_each_line_in_order_with_summary_on_stderr(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        [
            record(
                id="a",
                output={"order_items": [ORDER], "tool_calls": ["lookup_menu_item", "add_item_to_order"]},
                expected_output={"expected_items": [ORDER]},
                metadata={"category": "quantity"},
            ),
            "",
            record(
                id="b",
                output={"order_items": [], "tool_calls": []},
                expected_output={"expected_items": [ORDER]},
            ),
            record(
                output={"order_items": [{**ORDER, "quantity": 1}], "tool_calls": ["add_item_to_order"]},
                expected_output={"expected_items": [ORDER]},
            ),
        ],
    )
    result = runner.invoke(
        app,
        [
            str(path),
            "-e",
            "order_correctness",
            "--evaluator",
            "tool_call_accuracy",
            "-e",
            "avg_order_correctness",
            "-e",
            'score_breakdown:{"keys": ["category"], "scores": ["order_correctness"]}',
        ],
    )
    assert result.exit_code == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(r["id"], r["line"]) for r in lines] == [("a", 1), ("b", 3), (None, 4)]
    assert lines[0]["scores"] == {"order_correctness": 1.0, "tool_call_accuracy": 1.0}
    assert lines[1]["scores"] == {"order_correctness": 0.0, "tool_call_accuracy": 0.0}
    assert lines[2]["scores"]["order_correctness"] == pytest.approx(0.85)
    assert lines[2]["scores"]["tool_call_accuracy"] == 0.3
    assert lines[0]["errors"] == {}
    assert "order_correctness" in result.stderr and "0.617" in result.stderr  # mean of 1, 0, 0.85
    assert "avg_order_correctness (run)" in result.stderr
    assert "order_correctness[category=quantity] (run)" in result.stderr  # brackets are not markup


def test_evaluator_args_as_json(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        [
            record(
                id=1,
                output={
                    "results": [{"id": "x", "score": 1, "rank": 1}, {"id": "d", "score": 0.5, "rank": 2}]
                },
                expected_output={"relevant_ids": ["d"]},
            )
        ],
    )
    result = runner.invoke(app, [str(path), "-e", 'retrieval:{"ks": [1, 2]}'])
    assert result.exit_code == 0, result.stderr
    [line] = [json.loads(x) for x in result.stdout.splitlines()]
    assert line["id"] == 1
    assert line["scores"] == {
        "mrr": 0.5,
        "recall@1": 0.0,
        "precision@1": 0.0,
        "ndcg@1": 0.0,
        "hit@1": 0.0,
        "recall@2": 1.0,
        "precision@2": 0.5,
        "ndcg@2": pytest.approx(0.6309297535714575),
        "hit@2": 1.0,
        "map": 0.5,
    }


def test_evaluator_failures_are_reported_per_line_not_fatal(tmp_path: Path) -> None:
    path = write(tmp_path, [record(id="a", output={"order_items": []}, expected_output={})])
    result = runner.invoke(app, [str(path), "-e", "order_correctness"])
    assert result.exit_code == 0
    [line] = [json.loads(x) for x in result.stdout.splitlines()]
    assert line["scores"] == {"order_correctness": None}
    assert "expected_output.expected_items" in line["errors"]["order_correctness"]


def test_bad_json_names_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, [record(id="a", output={}), "{not json", record(id="c")])
    result = runner.invoke(app, [str(path), "-e", "order_correctness"])
    assert result.exit_code == 2
    assert "line 2" in result.stderr and "invalid JSON" in result.stderr
    assert result.stdout == ""


def test_record_that_is_not_an_object_names_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, [record(id="a"), "[1, 2]"])
    result = runner.invoke(app, [str(path), "-e", "order_correctness"])
    assert result.exit_code == 2 and "line 2" in result.stderr


def test_unknown_evaluator(tmp_path: Path) -> None:
    path = write(tmp_path, [record(id="a")])
    result = runner.invoke(app, [str(path), "-e", "order_corectness"])
    assert result.exit_code == 2
    assert "'order_corectness'" in result.stderr and "order_correctness" in result.stderr


@pytest.mark.parametrize("option", ['retrieval:{"ks": [1,', "retrieval:[1, 2]"])
def test_bad_evaluator_args(tmp_path: Path, option: str) -> None:
    path = write(tmp_path, [record(id="a")])
    result = runner.invoke(app, [str(path), "-e", option])
    assert result.exit_code == 2
    assert "retrieval" in result.stderr and "arguments" in result.stderr


def test_missing_file(tmp_path: Path) -> None:
    result = runner.invoke(app, [str(tmp_path / "nope.jsonl"), "-e", "order_correctness"])
    assert result.exit_code == 2 and "cannot read" in result.stderr
