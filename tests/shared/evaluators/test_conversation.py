"""Reference-free turn checks: tool_call_protocol and finalize_after_confirmation."""

from __future__ import annotations

import json
from typing import Any

import pytest

from shared.evaluators.conversation import finalize_after_confirmation, tool_call_protocol
from tests.evaluator_registry import get, run_item_evaluators
from yardstick.api.evaluation import EvaluatorSpec

pytestmark = pytest.mark.unit


def ai(*calls: tuple[str, str, dict[str, Any]]) -> dict[str, Any]:
    return {"type": "ai", "content": "", "tool_calls": [{"id": i, "name": n, "args": a} for i, n, a in calls]}


def tool(call_id: str, content: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool", "content": json.dumps(content), "tool_call_id": call_id}


LOOKUP_EGG = ai(("c1", "lookup_menu_item", {"item_name": "egg mcmuffins"}))
EGG_FOUND = tool("c1", {"found": True, "item_id": "egg-mcmuffin", "name": "Egg McMuffin"})
ADD_EGG = ai(
    ("c2", "add_item_to_order", {"item_id": "egg-mcmuffin", "item_name": "Egg McMuffin", "quantity": 2})
)


def protocol(trajectory: list[dict[str, Any]], tool_calls: list[str] | None = None) -> tuple[Any, str]:
    output: dict[str, Any] = {"trajectory": trajectory}
    if tool_calls is not None:
        output["tool_calls"] = tool_calls
    ev = tool_call_protocol(input={"customer_utterance": "x"}, output=output)
    return ev.value, ev.comment or ""


def test_registered_as_reference_free() -> None:
    get("tool_call_protocol")
    for name in ("tool_call_protocol", "finalize_after_confirmation", "no_hallucinated_items"):
        assert get(name).reference_free


def test_lookup_then_add_of_that_item_passes() -> None:
    assert (
        protocol([{"type": "human", "content": "two egg mcmuffins"}, LOOKUP_EGG, EGG_FOUND, ADD_EGG])[0]
        == 1.0
    )


def test_lookup_matched_by_name_when_result_is_not_available() -> None:
    # lookup and add in one AI message (parallel calls): the lookup's args name the item
    parallel = ai(
        ("c1", "lookup_menu_item", {"item_name": "Hash Browns"}),
        ("c2", "add_item_to_order", {"item_id": "hash-browns", "item_name": "hash brown"}),
    )
    assert protocol([parallel])[0] == 1.0


def test_add_without_lookup_fails_and_names_the_item() -> None:
    value, comment = protocol([ADD_EGG])
    assert value == 0.0 and "egg-mcmuffin" in comment


def test_add_of_a_different_item_than_looked_up_fails() -> None:
    add_hash = ai(("c2", "add_item_to_order", {"item_id": "hash-browns", "item_name": "Hash Browns"}))
    value, comment = protocol([LOOKUP_EGG, EGG_FOUND, add_hash])
    assert value == 0.0 and "hash-browns" in comment


def test_lookup_after_add_does_not_count() -> None:
    assert protocol([ADD_EGG, LOOKUP_EGG, EGG_FOUND])[0] == 0.0


def test_turn_without_add_passes() -> None:
    value, comment = protocol([{"type": "human", "content": "hi"}, {"type": "ai", "content": "Hello!"}])
    assert value == 1.0 and "No add_item_to_order" in comment


def test_falls_back_to_tool_names_without_trajectory() -> None:
    assert protocol([], ["lookup_menu_item", "add_item_to_order"])[0] == 1.0
    value, comment = protocol([], ["add_item_to_order", "lookup_menu_item"])
    assert value == 0.0 and "names only" in comment


def finalize(
    utterance: str, previous: str | None, calls: list[str] | None = None
) -> tuple[Any, dict[str, Any]]:
    ev = finalize_after_confirmation(
        input={"customer_utterance": utterance, "previous_response": previous},
        output={"tool_calls": ["finalize_order"] if calls is None else calls},
    )
    return ev.value, ev.metadata


READBACK = "So that's two Egg McMuffins and a Hash Browns. Is that correct?"


@pytest.mark.parametrize(
    "utterance", ["Yes", "yep that's right", "That's all, thanks", "No, that's it", "Sounds good"]
)
def test_finalize_after_readback_and_confirmation_passes(utterance: str) -> None:
    assert finalize(utterance, READBACK)[0] == 1.0


@pytest.mark.parametrize(
    "utterance", ["No", "Wait, add a coffee", "Actually make it three", "I'd like hotcakes"]
)
def test_finalize_without_confirmation_fails(utterance: str) -> None:
    value, meta = finalize(utterance, READBACK)
    assert value == 0.0 and meta["confirmed"] is False


def test_finalize_without_readback_fails() -> None:
    value, meta = finalize("yes", "Sure, what else can I get you?")
    assert value == 0.0 and meta == {"read_back": False, "confirmed": True}
    assert finalize("yes", None)[0] == 0.0


def test_turn_without_finalize_passes() -> None:
    assert finalize("two hash browns", None, calls=["lookup_menu_item"])[0] == 1.0


def test_patterns_can_be_overridden() -> None:
    ev = finalize_after_confirmation(
        input={"customer_utterance": "oui", "previous_response": "Votre commande: un café"},
        output={"tool_calls": ["finalize_order"]},
        readback_patterns=[r"votre commande"],
        confirm_patterns=[r"\boui\b"],
    )
    assert ev.value == 1.0


async def test_runs_on_a_traffic_turn_through_the_registry() -> None:
    turn = {
        "tool_calls": ["lookup_menu_item", "add_item_to_order"],
        "trajectory": [LOOKUP_EGG, EGG_FOUND, ADD_EGG],
        "order_items": [],
        "response": "ok",
        "finalized": False,
    }
    evs = await run_item_evaluators(
        [EvaluatorSpec(name="tool_call_protocol"), EvaluatorSpec(name="finalize_after_confirmation")],
        input={"customer_utterance": "two egg mcmuffins", "previous_response": None},
        output=turn,
        expected_output=None,
        metadata=None,
    )
    assert [(e.name, e.value) for e in evs] == [
        ("tool_call_protocol", 1.0),
        ("finalize_after_confirmation", 1.0),
    ]
