"""Evaluators of a replayed conversation (items of kind ``conversation``).

``output`` is the agent's replay (:class:`~shared.contracts.agent_conversation.AgentConversationResponse`:
``turns`` with the order after each, the final ``order_items``, ``finalized``, ``stopped``);
``expected_output`` a :class:`~shared.datasets.conversations.ConversationExpectation` (final order,
per-turn orders, ``must_finalize``). Each metric is ``None`` (not measured) when the conversation
states no expectation for it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from shared.contracts.agent_conversation import AgentConversationResponse, ConversationTurnResult
from shared.datasets.conversations import ConversationExpectation
from shared.evaluators.conversation import FINALIZE, readback_and_confirmation
from shared.evaluators.drive_thru import score_order
from shared.evaluators.order_matching import compare_orders
from shared.evaluators.registry import MetricDeclaration, register
from yardstick.api.agent_messages import OrderLine
from yardstick.api.evaluation import Evaluation
from yardstick.api.metric_spec import MetricSpec

FINAL_ORDER = "final_order_correctness"
TURN_ORDERS = "turn_order_accuracy"
FINALIZATION = "finalized_as_expected"
READBACK = "readback_before_finalize"


def _at_least(metric: str, arg: str, default: float) -> MetricDeclaration:
    def declare(args: Mapping[str, Any]) -> dict[str, MetricSpec]:
        return {metric: MetricSpec.higher(float(args.get(arg, default)))}

    return declare


def _lines(lines: list[OrderLine]) -> list[dict[str, Any]]:
    return [line.model_dump(mode="json") for line in lines]


def _order_score(expected: list[OrderLine], actual: list[OrderLine]) -> float:
    if not expected or not actual:
        return 1.0 if not expected and not actual else 0.0
    return compare_orders(_lines(expected), _lines(actual)).score


@register(FINAL_ORDER, inline=True, metrics=_at_least(FINAL_ORDER, "pass_at", 1.0))
def final_order_correctness(
    *,
    input: Any = None,
    output: Any,
    expected_output: Any,
    metadata: Any = None,
    pass_at: float = 1.0,
    **kwargs: Any,
) -> Evaluation:
    """The order at the end of the conversation, by the partial-credit order rules (passes at ``pass_at``)."""
    expected = ConversationExpectation.model_validate(expected_output or {})
    if expected.expected_items is None:
        return Evaluation(name=FINAL_ORDER, value=None, comment="No expected final order")
    replay = AgentConversationResponse.model_validate(output)
    return score_order(FINAL_ORDER, _lines(expected.expected_items), _lines(replay.order_items))


@register(TURN_ORDERS, inline=True, metrics=_at_least(TURN_ORDERS, "pass_at", 1.0))
def turn_order_accuracy(
    *,
    input: Any = None,
    output: Any,
    expected_output: Any,
    metadata: Any = None,
    match_at: float = 1.0,
    pass_at: float = 1.0,
    **kwargs: Any,
) -> Evaluation:
    """Share of the turns with an expected order whose order after the turn matched (score >= ``match_at``);
    a turn the agent never played (the order was finalized before it) did not match."""
    expected = ConversationExpectation.model_validate(expected_output or {})
    if not expected.turn_expectations:
        return Evaluation(name=TURN_ORDERS, value=None, comment="No per-turn expected orders")
    played = {turn.turn_index: turn for turn in AgentConversationResponse.model_validate(output).turns}
    scores: dict[str, float | None] = {}
    for expectation in expected.turn_expectations:
        turn = played.get(expectation.turn_index)
        scores[str(expectation.turn_index)] = (
            None if turn is None else _order_score(expectation.expected_items, turn.order_items)
        )
    missed = [index for index, score in scores.items() if score is None or score < match_at]
    share = (len(scores) - len(missed)) / len(scores)
    comment = (
        f"All {len(scores)} checked turn(s) match"
        if not missed
        else f"{len(scores) - len(missed)}/{len(scores)} checked turns match; "
        f"wrong after turn(s) {', '.join(missed)}"
    )
    return Evaluation(
        name=TURN_ORDERS, value=share, comment=comment, metadata={"turn_scores": scores, "missed": missed}
    )


@register(FINALIZATION, inline=True, metrics={FINALIZATION: MetricSpec.higher(1.0)})
def finalized_as_expected(
    *, input: Any = None, output: Any, expected_output: Any, metadata: Any = None, **kwargs: Any
) -> Evaluation:
    """1.0 when the order was finalized as ``must_finalize`` says, and not before the script's last turn."""
    expected = ConversationExpectation.model_validate(expected_output or {})
    if expected.must_finalize is None:
        return Evaluation(name=FINALIZATION, value=None, comment="The conversation does not say")
    replay = AgentConversationResponse.model_validate(output)
    meta = {"finalized": replay.finalized, "turns_played": len(replay.turns), "turns": replay.turns_scripted}
    if replay.stopped == "finalized_early":
        played = len(replay.turns)
        comment = f"Finalized on turn {played} of {replay.turns_scripted}: the customer was not done"
        return Evaluation(name=FINALIZATION, value=0.0, comment=comment, metadata=meta)
    if replay.finalized == expected.must_finalize:
        comment = "Finalized" if replay.finalized else "Not finalized, as expected"
        return Evaluation(name=FINALIZATION, value=1.0, comment=comment, metadata=meta)
    comment = "Never finalized" if expected.must_finalize else "Finalized though the customer never confirmed"
    return Evaluation(name=FINALIZATION, value=0.0, comment=comment, metadata=meta)


def _unnamed(lines: list[OrderLine], text: str) -> list[str]:
    """Names of order lines the text does not mention (case-insensitive, whole words)."""
    return [
        line.name
        for line in lines
        if not re.search(rf"\b{re.escape(line.name)}\b", text, flags=re.IGNORECASE)
    ]


def _finalize_turn(turns: list[ConversationTurnResult]) -> int | None:
    return next((t.turn_index for t in turns if FINALIZE in t.tool_calls), None)


@register(READBACK, inline=True, metrics={READBACK: MetricSpec.higher(1.0)})
def readback_before_finalize(
    *,
    input: Any = None,
    output: Any,
    expected_output: Any = None,
    metadata: Any = None,
    require_every_item: bool = True,
    readback_patterns: list[str] | None = None,
    confirm_patterns: list[str] | None = None,
    reject_patterns: list[str] | None = None,
    **kwargs: Any,
) -> Evaluation:
    """finalize_order only right after a read-back of the whole order (every item named, unless
    ``require_every_item`` is false) that the customer confirmed, with the order unchanged since."""
    turns = AgentConversationResponse.model_validate(output).turns
    at = _finalize_turn(turns)
    if at is None:
        return Evaluation(name=READBACK, value=None, comment="No finalize_order in the conversation")
    if at == 0:
        return Evaluation(
            name=READBACK, value=0.0, comment="finalize_order on the first turn: nothing was read back"
        )
    previous, final = turns[at - 1], turns[at]
    read_back, confirmed = readback_and_confirmation(
        previous.response,
        final.customer_utterance,
        readback_patterns=readback_patterns,
        confirm_patterns=confirm_patterns,
        reject_patterns=reject_patterns,
    )
    unnamed = _unnamed(final.order_items, previous.response) if require_every_item else []
    unchanged = _order_score(previous.order_items, final.order_items) == 1.0
    meta: dict[str, Any] = {
        "finalize_turn": at,
        "read_back": read_back,
        "confirmed": confirmed,
        "unnamed_items": unnamed,
        "order_unchanged": unchanged,
    }
    problems = [
        text
        for text, ok in (
            ("the previous reply did not read the order back", read_back),
            (f"the read-back left out {unnamed}", not unnamed),
            ("the customer did not confirm", confirmed),
            ("the order changed after the read-back", unchanged),
        )
        if not ok
    ]
    if problems:
        return Evaluation(
            name=READBACK,
            value=0.0,
            comment=f"Finalized at turn {at}, but " + "; ".join(problems),
            metadata=meta,
        )
    return Evaluation(
        name=READBACK, value=1.0, comment=f"Finalized at turn {at} after a confirmed read-back", metadata=meta
    )
