"""The generic evaluators: values, reasons, argument checks and the pass criteria they declare."""

from __future__ import annotations

from typing import Any

import pytest

from shared.evaluators import EvaluatorArgumentsError
from shared.evaluators.generic import embedded_json, fuzzy_match, json_schema, json_valid
from tests.evaluator_registry import policy_of, run_item_evaluators, validate_specs
from yardstick.api.evaluation import EvaluatorSpec

pytestmark = pytest.mark.unit

OUTPUT = {
    "answer": "The Big Mac has two patties.",
    "data": {"total": 12.5, "items": [{"name": "Big Mac"}]},
    "tool_calls": ["lookup_menu_item", "add_item_to_order", "finalize_order"],
    "latency_ms": 420.0,
    "raw": '{"ok": true}',
}


async def score(name: str, args: dict[str, Any], expected_output: Any = None) -> tuple[float | None, str]:
    [result] = await run_item_evaluators(
        [EvaluatorSpec(name=name, args=args)],
        input={},
        output=OUTPUT,
        expected_output=expected_output,
        metadata={},
    )
    return result.value, (result.error or result.comment or "")


@pytest.mark.parametrize(
    ("name", "args", "expected_output", "value"),
    [
        (
            "exact_match",
            {"field": "answer", "expected": "the big mac has two patties.", "case_sensitive": False},
            None,
            1.0,
        ),
        ("exact_match", {"field": "answer"}, {"answer": "Something else"}, 0.0),
        ("exact_match", {"field": "data.items.0.name", "expected_field": "name"}, {"name": "Big Mac"}, 1.0),
        ("contains", {"field": "answer", "expected": "TWO PATTIES"}, None, 1.0),
        ("regex_match", {"field": "answer", "pattern": r"\btwo\b"}, None, 1.0),
        ("regex_match", {"field": "answer", "pattern": r"^two", "full": True}, None, 0.0),
        ("json_valid", {"field": "raw"}, None, 1.0),
        ("json_valid", {"field": "answer"}, None, 0.0),
        ("json_schema", {"field": "data", "schema": {"type": "object", "required": ["total"]}}, None, 1.0),
        (
            "json_schema",
            {"field": "data", "schema": {"properties": {"total": {"type": "string"}}}},
            None,
            0.0,
        ),
        ("numeric_tolerance", {"field": "data.total", "expected": 12.0, "abs_tol": 0.5}, None, 1.0),
        ("numeric_tolerance", {"field": "data.total", "expected": 10.0, "rel_tol": 0.1}, None, 0.0),
        ("tool_called", {"tool": "finalize_order"}, None, 1.0),
        ("tool_called", {"tool": "remove_item"}, None, 0.0),
        ("tool_sequence", {"tools": ["lookup_menu_item", "finalize_order"]}, None, 1.0),
        ("tool_sequence", {"tools": ["finalize_order", "lookup_menu_item"]}, None, 0.0),
        ("tool_sequence", {"tools": ["lookup_menu_item", "finalize_order"], "exact": True}, None, 0.0),
        ("latency_budget", {"max_ms": 500}, None, 1.0),
        ("latency_budget", {"max_ms": 400}, None, 0.0),
    ],
)
async def test_values(name: str, args: dict[str, Any], expected_output: Any, value: float) -> None:
    got, comment = await score(name, args, expected_output)
    assert got == value, comment
    assert comment


async def test_similarity_and_its_pass_criterion() -> None:
    got, _ = await score("string_similarity", {"field": "answer", "expected": "The Big Mac has 2 patties"})
    assert got is not None and 0.8 < got < 1.0
    policy = policy_of([EvaluatorSpec(name="string_similarity")])
    assert policy.criterion("string_similarity").describe() == ">= 0.8"
    assert policy_of([EvaluatorSpec(name="exact_match")]).criterion("exact_match").describe() == ">= 1"


async def test_a_missing_path_is_a_recorded_error_not_a_score() -> None:
    got, error = await score("exact_match", {"field": "nope", "expected": "x"})
    assert got is None and "no value at output path 'nope'" in error


@pytest.mark.parametrize(
    ("name", "args", "field"),
    [
        ("regex_match", {}, "pattern"),
        ("string_similarity", {"method": "levenshtein"}, "method"),
        ("latency_budget", {"max_ms": -1}, "max_ms"),
        ("json_schema", {"schema": "not an object"}, "schema"),
        ("regex_match", {"pattern": "("}, "pattern: Value error, '\\(' is not a regular expression"),
        ("json_schema", {"schema": {"type": 5}}, "schema: Value error, not a JSON Schema"),
    ],
)
def test_bad_arguments_are_refused_at_submission(name: str, args: dict[str, Any], field: str) -> None:
    with pytest.raises(EvaluatorArgumentsError, match=rf"evaluator '{name}': {field}"):
        validate_specs([EvaluatorSpec(name=name, args=args)])


def test_fuzzy_match_normalises_and_accepts_either_containment() -> None:
    assert fuzzy_match(output="The George Washington.", expected="george washington").value == 1.0
    assert fuzzy_match(output="Washington", expected=["Lincoln", "George Washington"]).value == 1.0
    assert fuzzy_match(output="Lincoln", expected="George Washington").value == 0.0
    assert fuzzy_match(output="", expected="x").value == 0.0


def test_embedded_json_is_found_inside_text() -> None:
    text = 'Sure: {"a": 1} and [2, 3] but not {broken'
    assert embedded_json(text) == [{"a": 1}, [2, 3]]
    assert json_valid(output=text, embedded=True).value == 1.0
    assert json_valid(output=text).value == 0.0
    assert json_valid(output="no json here", embedded=True).value == 0.0
    schema = {"type": "object", "required": ["a"]}
    assert json_schema(output=text, schema=schema, embedded=True).value == 1.0
    assert json_schema(output="[1]", schema=schema, embedded=True).value == 0.0
