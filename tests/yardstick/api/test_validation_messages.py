"""Pydantic errors as plain sentences: the closest known name, list positions counted from 1."""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from yardstick.api.validation_messages import (
    closest,
    describe_errors,
    did_you_mean_each,
    location,
    model_at,
    unknown_name,
)

pytestmark = pytest.mark.unit


class Colour(Enum):
    RED = "red"
    GREEN = "green"


class Line(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    colour: Colour = Colour.RED


class Step(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    tool_name: str = Field(alias="toolName")


class Order(BaseModel):
    model_config = ConfigDict(extra="forbid")
    mode: Literal["fast", "thorough"] = "fast"
    lines: list[Line] = Field(default_factory=list)
    steps: Annotated[list[Step] | None, Field(description="optional")] = None
    by_name: dict[str, Line] = Field(default_factory=dict)
    metadata: dict[str, Any] = Field(default_factory=dict)


def sentences(raw: object) -> list[str]:
    with pytest.raises(ValidationError) as caught:
        Order.model_validate(raw)
    return describe_errors(caught.value, Order)


def test_an_unknown_field_names_the_closest_known_one_and_where_extra_data_goes() -> None:
    assert sentences({"mdoe": "fast"}) == [
        "unknown field 'mdoe'; did you mean 'mode'? Put extra data under 'metadata'."
    ]
    assert sentences({"metdata": {}}) == ["unknown field 'metdata'; did you mean 'metadata'?"]
    assert sentences({"lines": [{"name": "a"}, {"name": "b", "colur": "red"}]}) == [
        "line 2: unknown field 'colur'; did you mean 'colour'?"
    ]


def test_the_known_names_are_found_through_optional_lists_mappings_and_aliases() -> None:
    assert sentences({"steps": [{"toolNmae": "x"}]}) == [
        "step 1: missing field 'toolName'",
        "step 1: unknown field 'toolNmae'; did you mean 'toolName'?",
    ]
    assert sentences({"by_name": {"a": {"name": "x", "nmae": "y"}}}) == [
        "by_name.a: unknown field 'nmae'; did you mean 'name'?"
    ]
    assert model_at(Order, ("steps", 0)) is Step and model_at(Order, ("mode",)) is None


def test_a_value_outside_a_fixed_set_names_the_closest_choice() -> None:
    assert sentences({"mode": "thorogh"}) == [
        "mode: 'thorogh' is not one of 'fast', 'thorough'; did you mean 'thorough'?"
    ]
    assert sentences({"lines": [{"name": "a", "colour": "gren"}]}) == [
        "line 1, colour: 'gren' is not one of 'red', 'green'; did you mean 'green'?"
    ]


def test_a_name_far_from_every_known_one_gets_no_guess() -> None:
    assert closest("script", ["description", "turns", "id"]) is None
    assert closest("pyhton", ["agent", "python"]) == "python"
    assert closest("EXACT_MACH", ["exact_match"]) == "exact_match", "case is ignored"
    assert sentences({"zzzz": 1}) == ["unknown field 'zzzz'. Put extra data under 'metadata'."]


def test_unknown_names_outside_a_model() -> None:
    assert unknown_name("target kind", "pyhton", ["agent", "python"], "known kinds") == (
        "unknown target kind 'pyhton'; did you mean 'python'? Known kinds: agent, python"
    )
    assert (
        unknown_name("evaluator", "nope", ["exact_match"]) == "unknown evaluator 'nope'; known: exact_match"
    )
    assert did_you_mean_each(["kz", "mdoe"], ["ks", "mode"]) == "; did you mean 'mode' for 'mdoe'?"
    assert did_you_mean_each(["nmae", "mdoe"], ["name", "mode"]) == (
        "; did you mean 'name' for 'nmae', 'mode' for 'mdoe'?"
    )


def test_positions_count_from_1() -> None:
    assert location(("items", 0, "input", "messages", 2, "content")) == "item 1, input, message 3, content"
    assert location(("test_cases", 4)) == "test case 5"
    assert location(("ks", 0)) == "ks entry 1"
    assert location(()) == ""


def test_other_errors_keep_their_message_and_the_list_is_bounded() -> None:
    many = {"lines": [{"name": 1} for _ in range(7)]}
    described = sentences(many)
    assert described[0] == "line 1, name: Input should be a valid string"
    assert described[-1] == "(and 2 more)" and len(described) == 6
