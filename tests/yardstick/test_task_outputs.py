"""What a task function's return value becomes in the item's output."""

from __future__ import annotations

import dataclasses
from datetime import date

import pytest

from yardstick.task_worker import as_output

pytestmark = pytest.mark.unit


@dataclasses.dataclass
class Answer:
    text: str
    sources: list[str]


@pytest.mark.parametrize(
    ("value", "output"),
    [
        ("Paris", {"output": "Paris"}),
        (42, {"output": 42}),
        (None, {"output": None}),
        ([1, 2], {"output": [1, 2]}),
        ({"answer": "x", "n": 1}, {"answer": "x", "n": 1}),
        ({1: "int key"}, {"1": "int key"}),
        (Answer("x", ["d1"]), {"text": "x", "sources": ["d1"]}),
        ({"on": date(2026, 1, 2)}, {"on": "2026-01-02"}),
    ],
)
def test_a_dict_is_the_output_anything_else_is_wrapped(value: object, output: dict[str, object]) -> None:
    assert as_output(value) == output


def test_a_value_that_is_not_json_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="not JSON"):
        as_output({"f": object()})
