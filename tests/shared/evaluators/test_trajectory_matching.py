"""Trajectory normalisation, match modes, argument modes and similarity."""

from __future__ import annotations

from typing import Any

import pytest

from shared.evaluators.trajectory_matching import (
    TOOL_RESULT,
    ArgsMode,
    TrajectoryMode,
    edit_distance,
    lcs_length,
    normalise,
    similarity,
    trajectories_match,
)

pytestmark = pytest.mark.unit


def ai(*calls: tuple[str, dict[str, Any]], content: str = "") -> dict[str, Any]:
    return {
        "type": "ai",
        "content": content,
        "tool_calls": [{"id": f"x{i}", "name": n, "args": a} for i, (n, a) in enumerate(calls)],
    }


RAW = [
    {"type": "system", "content": "be nice"},
    {"type": "human", "content": "two hash browns"},
    ai(("lookup_menu_item", {"item_name": "hash browns"}), ("get_current_order", {})),
    {"type": "tool", "content": "{...}", "tool_call_id": "x0"},
    {"type": "tool", "content": "{...}", "tool_call_id": "x1"},
    ai(("add_item_to_order", {"item_id": "hash-browns", "quantity": 2})),
    {"type": "human", "content": "second human message is dropped"},
    {"type": "ai", "content": "Added two hash browns."},
]


def test_normalisation_matches_the_seed() -> None:
    norm = normalise(RAW)
    assert norm.first_human == "two hash browns"
    assert norm.names == ["lookup_menu_item", "get_current_order", "add_item_to_order"]
    assert all(c.args == {} for c in norm.calls)
    messages = norm.to_messages()
    assert messages[0] == {"type": "human", "content": "two hash browns"}
    assert messages[1] == {
        "type": "ai",
        "content": "",
        "tool_calls": [{"id": "call_1", "name": "lookup_menu_item", "args": {}}],
    }
    assert messages[2] == {"type": "tool", "content": TOOL_RESULT, "tool_call_id": "call_1"}
    assert [m["tool_calls"][0]["id"] for m in messages if m["type"] == "ai"] == ["call_1", "call_2", "call_3"]
    assert len(messages) == 1 + 2 * 3


def test_normalisation_can_filter_to_mandatory_tools_and_keep_args() -> None:
    norm = normalise(RAW, only_tools=["add_item_to_order"], args_mode="exact")
    assert norm.names == ["add_item_to_order"]
    assert norm.calls[0].args == {"item_id": "hash-browns", "quantity": 2}


def test_openai_style_roles_are_understood() -> None:
    norm = normalise(
        [{"role": "user", "content": "hi"}, {"role": "assistant", "tool_calls": [{"name": "t", "args": {}}]}]
    )
    assert norm.first_human == "hi" and norm.names == ["t"]


def calls(*names: str) -> list[dict[str, Any]]:
    return [ai((n, {})) for n in names]


@pytest.mark.parametrize(
    ("actual", "reference", "mode", "expected"),
    [
        (["a", "b"], ["a", "b"], "strict", True),
        (["b", "a"], ["a", "b"], "strict", False),
        (["a"], ["a", "b"], "strict", False),
        (["b", "a"], ["a", "b"], "unordered", True),
        (["a", "a", "b"], ["a", "b"], "unordered", False),
        (["a"], ["a", "b"], "subset", True),
        (["a", "c"], ["a", "b"], "subset", False),
        (["a", "a"], ["a", "b"], "subset", False),
        (["a", "b", "c"], ["a", "b"], "superset", True),
        (["a"], ["a", "b"], "superset", False),
        ([], [], "strict", True),
        ([], ["a"], "subset", True),
        ([], ["a"], "superset", False),
    ],
)
def test_trajectory_modes(
    actual: list[str], reference: list[str], mode: TrajectoryMode, expected: bool
) -> None:
    assert trajectories_match(normalise(calls(*actual)), normalise(calls(*reference)), mode) is expected


@pytest.mark.parametrize(
    ("actual_args", "reference_args", "args_mode", "expected"),
    [
        ({"q": 1}, {"q": 2}, "ignore", True),
        ({"q": 1}, {"q": 1}, "exact", True),
        ({"q": 1, "x": 2}, {"q": 1}, "exact", False),
        ({"q": 1}, {"q": 1, "x": 2}, "subset", True),
        ({"q": 1, "y": 3}, {"q": 1, "x": 2}, "subset", False),
        ({"q": 1, "x": 2}, {"q": 1}, "superset", True),
        ({"x": 2}, {"q": 1}, "superset", False),
    ],
)
def test_argument_modes(
    actual_args: dict[str, Any], reference_args: dict[str, Any], args_mode: ArgsMode, expected: bool
) -> None:
    actual = normalise([ai(("t", actual_args))], args_mode=args_mode)
    reference = normalise([ai(("t", reference_args))], args_mode=args_mode)
    for mode in ("strict", "unordered", "subset", "superset"):
        assert trajectories_match(actual, reference, mode, args_mode) is expected


def test_unordered_matching_is_a_true_bipartite_matching() -> None:
    # Greedy matching would pair actual {q:1,x:2} with reference {q:1} first and then fail.
    actual = normalise([ai(("t", {"q": 1, "x": 2}), ("t", {"q": 1}))], args_mode="superset")
    reference = normalise([ai(("t", {"q": 1}), ("t", {"q": 1, "x": 2}))], args_mode="superset")
    assert trajectories_match(actual, reference, "unordered", "superset")


def test_similarity_values() -> None:
    assert lcs_length(["a", "b", "c"], ["a", "c"]) == 2
    assert edit_distance(["a", "b", "c"], ["a", "c"]) == 1
    assert similarity([], []) == 1.0
    assert similarity(["a"], []) == 0.0
    assert similarity(["a", "b", "c"], ["a", "c"]) == pytest.approx(0.8)
    assert similarity(["a", "b", "c"], ["a", "c"], "edit") == pytest.approx(2 / 3)
    assert similarity(["a", "b"], ["b", "a"]) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="unknown similarity method"):
        similarity(["a"], ["a"], "cosine")  # type: ignore[arg-type]
