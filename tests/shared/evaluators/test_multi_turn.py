"""The conversation evaluators on hand-made replays."""

from __future__ import annotations

from typing import Any

import pytest

from shared.evaluators.multi_turn import (
    final_order_correctness,
    finalized_as_expected,
    readback_before_finalize,
    turn_order_accuracy,
)
from tests.evaluator_registry import policy_of
from yardstick.api.evaluation import EvaluatorSpec

pytestmark = pytest.mark.unit

EGG = {"item_id": "egg-mcmuffin", "name": "Egg McMuffin", "quantity": 1}
HASH = {"item_id": "hash-browns", "name": "Hash Browns", "quantity": 1}
READBACK = "Here's your order: one Egg McMuffin and one Hash Browns. Is that correct?"


def turn(
    index: int, says: str, order: list[dict[str, Any]], reply: str = "Got it.", **kw: Any
) -> dict[str, Any]:
    return {"turn_index": index, "customer_utterance": says, "response": reply, "order_items": order, **kw}


def replay(*turns: dict[str, Any], scripted: int | None = None, **kw: Any) -> dict[str, Any]:
    played = list(turns)
    return {
        "turns": played,
        "turns_scripted": scripted if scripted is not None else len(played),
        "order_items": played[-1]["order_items"] if played else [],
        "finalized": any(t.get("finalized") for t in played),
        **kw,
    }


GOOD = replay(
    turn(0, "Egg McMuffin", [EGG], tool_calls=["lookup_menu_item", "add_item_to_order"]),
    turn(1, "and a hash brown", [EGG, HASH], tool_calls=["lookup_menu_item", "add_item_to_order"]),
    turn(2, "that's all", [EGG, HASH], READBACK, tool_calls=["get_current_order"]),
    turn(3, "yes", [EGG, HASH], "Thank you!", tool_calls=["finalize_order"], finalized=True),
)
EXPECTED = {
    "expected_items": [EGG, HASH],
    "must_finalize": True,
    "turn_expectations": [
        {"turn_index": 0, "expected_items": [EGG]},
        {"turn_index": 1, "expected_items": [EGG, HASH]},
    ],
}


def test_a_good_conversation_scores_one_everywhere() -> None:
    for evaluator in (
        final_order_correctness,
        turn_order_accuracy,
        finalized_as_expected,
        readback_before_finalize,
    ):
        result = evaluator(output=GOOD, expected_output=EXPECTED)
        assert result.value == 1.0, (result.name, result.comment)


def test_the_final_order_uses_partial_credit() -> None:
    wrong = replay(turn(0, "Egg McMuffin", [{**EGG, "quantity": 2}]))
    result = final_order_correctness(output=wrong, expected_output={"expected_items": [EGG]})
    assert result.value == pytest.approx(0.4 + 0.3 * 0.5 + 0.2 + 0.1)
    assert "quantity 2 != 1" in str(result.comment)
    assert final_order_correctness(output=wrong, expected_output={}).value is None


def test_turn_accuracy_is_the_share_of_checked_turns_that_matched() -> None:
    stale = replay(turn(0, "Egg McMuffin", [EGG]), turn(1, "remove it", [EGG]))
    expected = {
        "turn_expectations": [
            {"turn_index": 0, "expected_items": [EGG]},
            {"turn_index": 1, "expected_items": []},
        ]
    }
    result = turn_order_accuracy(output=stale, expected_output=expected)
    assert result.value == 0.5 and result.metadata["missed"] == ["1"]
    assert turn_order_accuracy(output=stale, expected_output={}).value is None
    # a turn never played (finalized before it) did not match
    short = replay(turn(0, "Egg McMuffin", [EGG]), scripted=2)
    assert turn_order_accuracy(output=short, expected_output=expected).value == 0.5


def test_finalization_follows_must_finalize_and_refuses_an_early_one() -> None:
    open_order = replay(turn(0, "Egg McMuffin", [EGG]))
    assert finalized_as_expected(output=open_order, expected_output={"must_finalize": False}).value == 1.0
    assert finalized_as_expected(output=open_order, expected_output={"must_finalize": True}).value == 0.0
    assert finalized_as_expected(output=open_order, expected_output={}).value is None
    early = replay(*GOOD["turns"], scripted=5, stopped="finalized_early")
    result = finalized_as_expected(output=early, expected_output={"must_finalize": True})
    assert result.value == 0.0 and "turn 4 of 5" in str(result.comment)


def test_readback_must_name_every_item_be_confirmed_and_precede_finalize() -> None:
    partial = [dict(t) for t in GOOD["turns"]]
    partial[2]["response"] = "Here's your order: one Egg McMuffin. Is that correct?"
    result = readback_before_finalize(output=replay(*partial))
    assert result.value == 0.0 and result.metadata["unnamed_items"] == ["Hash Browns"]
    assert readback_before_finalize(output=replay(*partial), require_every_item=False).value == 1.0

    unconfirmed = [dict(t) for t in GOOD["turns"]]
    unconfirmed[3]["customer_utterance"] = "wait, add a coffee"
    assert readback_before_finalize(output=replay(*unconfirmed)).metadata["confirmed"] is False

    skipped = [dict(t) for t in GOOD["turns"]]
    skipped[2]["response"] = "Anything else?"
    assert readback_before_finalize(output=replay(*skipped)).metadata["read_back"] is False

    first = replay(turn(0, "Egg McMuffin, done", [EGG], tool_calls=["finalize_order"], finalized=True))
    assert readback_before_finalize(output=first).value == 0.0
    assert readback_before_finalize(output=replay(turn(0, "hi", []))).value is None


def test_declared_pass_criteria_follow_the_arguments() -> None:
    policy = policy_of(
        [
            EvaluatorSpec(name="final_order_correctness", args={"pass_at": 0.8}),
            EvaluatorSpec(name="turn_order_accuracy"),
            EvaluatorSpec(name="readback_before_finalize"),
        ]
    )
    assert policy.criterion("final_order_correctness").threshold == 0.8
    assert policy.criterion("turn_order_accuracy").threshold == 1.0
    assert policy.criterion("readback_before_finalize").threshold == 1.0
