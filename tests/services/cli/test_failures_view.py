"""The run's failures for people: grouped by source and type, an evaluator's as name@version."""

from __future__ import annotations

import pytest
from rich.console import Console

from services.cli.failures_view import failures_view

pytestmark = pytest.mark.unit


def _text(failures: dict[str, object]) -> str:
    view = failures_view(failures)  # type: ignore[arg-type]
    assert view is not None
    console = Console(width=160, record=True)
    console.print(view)
    return console.export_text()


def test_groups_show_source_type_message_and_the_evaluator_with_its_version() -> None:
    groups = [
        {
            "source": "evaluator",
            "type": "RuntimeError",
            "evaluator": "explodes",
            "evaluator_version": "2",
            "message": "judge exploded",
            "count": 3,
            "example_item_ids": ["syn-0000", "syn-0002"],
        },
        {
            "source": "target",
            "type": "TargetRejected",
            "evaluator": None,
            "evaluator_version": None,
            "message": "agent answered with an error",
            "count": 1,
            "example_item_ids": ["syn-0001"],
        },
    ]
    lines = _text({"errors": groups, "failing": []}).splitlines()
    [evaluator] = [line.replace("│", " ") for line in lines if "RuntimeError" in line]
    assert evaluator.split() == [
        "3",
        "evaluator",
        "RuntimeError",
        "explodes@2",
        "judge",
        "exploded",
        "syn-0000,",
        "syn-0002",
    ]
    [target] = [line.replace("│", " ") for line in lines if "TargetRejected" in line]
    assert "explodes" not in target and target.split()[:3] == ["1", "target", "TargetRejected"]


def test_a_group_from_a_coordinator_of_the_previous_version_still_shows() -> None:
    old = {"message": "TimeoutError: slow", "count": 2, "example_item_ids": ["a"]}
    assert "TimeoutError: slow" in _text({"errors": [old], "failing": []})
    assert failures_view({"errors": [], "failing": []}) is None
