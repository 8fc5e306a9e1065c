"""Trajectory evaluators and the trajectory-scenario pass/fail policy."""

from __future__ import annotations

from typing import Any

import pytest

from shared.evaluators.trajectory import (
    forbidden_tools_check,
    mandatory_tools_check,
    trajectory_match,
    trajectory_pass,
    trajectory_similarity,
)
from yardstick.api.agent_messages import AgentInvokeResponse, TrajectoryMessage

pytestmark = pytest.mark.unit


def ai(name: str, **args: Any) -> dict[str, Any]:
    return {"type": "ai", "content": "", "tool_calls": [{"id": f"id-{name}", "name": name, "args": args}]}


def out(*names: str) -> dict[str, Any]:
    return {
        "trajectory": [{"type": "human", "content": "q"}, *(ai(n) for n in names)],
        "tool_calls": list(names),
    }


def expected(
    reference: list[str] | None,
    *,
    mandatory: list[str] | None = None,
    forbidden: list[str] | None = None,
    mode: str = "strict",
    require_match: bool = False,
) -> dict[str, Any]:
    return {
        "reference_trajectory": None
        if reference is None
        else [{"type": "human", "content": "q"}, *(ai(n) for n in reference)],
        "requirements": {
            "mandatory_tools": mandatory or [],
            "forbidden_tools": forbidden or [],
            "trajectory_mode": mode,
            "require_match": require_match,
        },
    }


LOOKUP, ADD, FINAL = "lookup_menu_item", "add_item_to_order", "finalize_order"


def test_match_uses_the_items_mode_and_records_details() -> None:
    ev = trajectory_match(output=out(ADD, LOOKUP), expected_output=expected([LOOKUP, ADD], mode="unordered"))
    assert ev.value is True
    assert ev.metadata["mode"] == "unordered"
    strict = trajectory_match(output=out(ADD, LOOKUP), expected_output=expected([LOOKUP, ADD]))
    assert strict.value is False and "called ['add_item_to_order', 'lookup_menu_item']" in (
        strict.comment or ""
    )


def test_match_mode_can_be_overridden_by_args() -> None:
    ev = trajectory_match(
        output=out(LOOKUP, ADD, "get_current_order"),
        expected_output=expected([LOOKUP, ADD]),
        trajectory_mode="superset",
    )
    assert ev.value is True


def test_match_with_argument_mode() -> None:
    actual = {"trajectory": [ai(LOOKUP, item_name="Egg McMuffin")]}
    reference = {"reference_trajectory": [ai(LOOKUP, item_name="egg mcmuffin")], "requirements": {}}
    assert trajectory_match(output=actual, expected_output=reference).value is True  # default: ignore args
    assert trajectory_match(output=actual, expected_output=reference, args_mode="exact").value is False


def test_match_filtered_to_mandatory_tools() -> None:
    exp = expected([LOOKUP, ADD], mandatory=[ADD])
    assert trajectory_match(output=out("get_current_order", ADD), expected_output=exp).value is False
    assert (
        trajectory_match(
            output=out("get_current_order", ADD), expected_output=exp, filter_to_mandatory=True
        ).value
        is True
    )


def test_match_without_reference_is_skipped_with_none() -> None:
    ev = trajectory_match(output=out(LOOKUP), expected_output=expected(None))
    assert ev.value is None and ev.comment == "skipped: no reference trajectory"


def test_agent_response_model_and_tool_name_fallback() -> None:
    response = AgentInvokeResponse(
        trajectory=[
            TrajectoryMessage(type="human", content="q"),
            TrajectoryMessage(type="ai", tool_calls=[{"id": "1", "name": LOOKUP, "args": {}}]),
        ]
    )
    assert trajectory_match(output=response, expected_output=expected([LOOKUP])).value is True
    assert (
        trajectory_match(output={"tool_calls": [LOOKUP, ADD]}, expected_output=expected([LOOKUP, ADD])).value
        is True
    )


def test_mandatory_and_forbidden_checks() -> None:
    exp = expected(None, mandatory=[LOOKUP, ADD], forbidden=[FINAL])
    missing = mandatory_tools_check(output=out(LOOKUP), expected_output=exp)
    assert missing.value is False and missing.metadata["missing"] == [ADD]
    assert mandatory_tools_check(output=out(LOOKUP, ADD), expected_output=exp).value is True
    used = forbidden_tools_check(output=out(LOOKUP, FINAL), expected_output=exp)
    assert used.value is False and used.metadata["used"] == [FINAL]
    assert forbidden_tools_check(output=out(LOOKUP), expected_output=exp).value is True


def test_checks_without_requirements_are_skipped_and_args_override() -> None:
    assert mandatory_tools_check(output=out(LOOKUP), expected_output=None).value is None
    assert forbidden_tools_check(output=out(LOOKUP), expected_output=None).value is None
    assert (
        mandatory_tools_check(output=out(LOOKUP), expected_output=None, mandatory_tools=[ADD]).value is False
    )
    assert (
        forbidden_tools_check(output=out(LOOKUP), expected_output=None, forbidden_tools=[LOOKUP]).value
        is False
    )


@pytest.mark.parametrize(
    ("called", "exp", "passed", "policy"),
    [
        # tool checks present: they decide; a failed match does not gate without require_match
        ([ADD, LOOKUP], expected([LOOKUP, ADD], mandatory=[LOOKUP, ADD]), True, "tool checks"),
        ([LOOKUP], expected([LOOKUP, ADD], mandatory=[LOOKUP, ADD]), False, "tool checks"),
        ([LOOKUP, ADD, FINAL], expected(None, forbidden=[FINAL]), False, "tool checks"),
        # require_match: the match must pass as well
        (
            [ADD, LOOKUP],
            expected([LOOKUP, ADD], mandatory=[LOOKUP], require_match=True),
            False,
            "tool checks + match",
        ),
        (
            [LOOKUP, ADD],
            expected([LOOKUP, ADD], mandatory=[LOOKUP], require_match=True),
            True,
            "tool checks + match",
        ),
        # require_match with no reference: the skipped match never gates
        ([LOOKUP], expected(None, mandatory=[LOOKUP], require_match=True), True, "tool checks"),
        # no tool checks: the match decides
        ([ADD, LOOKUP], expected([LOOKUP, ADD]), False, "match"),
        ([LOOKUP, ADD], expected([LOOKUP, ADD]), True, "match"),
        # nothing to check: pass by default
        ([FINAL], expected(None), True, "default (no checks)"),
    ],
)
def test_pass_fail_policy(called: list[str], exp: dict[str, Any], passed: bool, policy: str) -> None:
    ev = trajectory_pass(output=out(*called), expected_output=exp)
    assert ev.value is passed
    assert ev.metadata["policy"] == policy


def test_similarity_gives_partial_credit() -> None:
    exp = expected([LOOKUP, ADD, LOOKUP, ADD])
    near = trajectory_similarity(output=out(LOOKUP, ADD, LOOKUP), expected_output=exp)
    assert near.value == pytest.approx(2 * 3 / 7, abs=1e-6)
    assert trajectory_similarity(output=out(LOOKUP, ADD, LOOKUP, ADD), expected_output=exp).value == 1.0
    assert trajectory_similarity(output=out(FINAL), expected_output=exp).value == 0.0
    edit = trajectory_similarity(output=out(LOOKUP, ADD, LOOKUP), expected_output=exp, method="edit")
    assert edit.value == pytest.approx(0.75)
    assert trajectory_similarity(output=out(), expected_output=expected(None)).value is None
