"""Reference-free checks of one live conversation turn (the sampler scores traffic with these).

``input = {"customer_utterance": str, "previous_response": str | None}`` (a trace's input names the
utterance ``query``: :mod:`shared.online.trace_payload`); ``output`` is the turn (``tool_calls``,
``trajectory``, ``order_items``, ``response``, ``finalized``).
"""

from __future__ import annotations

import json
import re
from typing import Any

from shared.evaluators.payload import as_dict, as_list, tool_call_names
from shared.evaluators.registry import register
from yardstick.api.evaluation import Evaluation

LOOKUP = "lookup_menu_item"
ADD = "add_item_to_order"
FINALIZE = "finalize_order"

# Heuristics, deliberately conservative; override with the evaluator's args.
READBACK_PATTERNS = [
    r"\byour order\b",
    r"\border (is|comes to|so far)\b",
    r"\byou('ve| have)? ordered\b",
    r"\bso (that'?s|that is|you have)\b",
    r"\bto confirm\b",
    r"\bis that (correct|right|everything|all)\b",
    r"\bdoes that (look|sound) (right|good|correct)\b",
]
CONFIRM_PATTERNS = [
    r"\b(yes|yeah|yep|yup|sure|correct|confirm(ed)?|perfect|exactly)\b",
    r"\bthat'?s (right|correct|it|all|everything|perfect)\b",
    r"\b(sounds|looks) (good|right|great)\b",
    r"\bnothing else\b",
    r"\bi'?m done\b",
]
REJECT_PATTERNS = [
    r"\b(wait|actually|instead|change|remove|cancel|wrong|also|add)\b",
    r"\bnot (right|correct|it)\b",
    r"^\s*no\b(?!.*\b(that'?s (it|all|everything)|nothing else|i'?m done)\b)",
]


def _normalise(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", name.lower()).strip().removesuffix("s")


def _parse_tool_content(content: Any) -> dict[str, Any]:
    if isinstance(content, dict):
        return content
    if isinstance(content, str):
        try:
            parsed = json.loads(content)
        except ValueError:
            return {}
        return parsed if isinstance(parsed, dict) else {}
    return {}


@register("tool_call_protocol", inline=True, reference_free=True)
def tool_call_protocol(
    *, input: Any = None, output: Any, expected_output: Any = None, metadata: Any = None, **kwargs: Any
) -> Evaluation:
    """Every add_item_to_order in the turn comes after a lookup of that item (1.0 / 0.0)."""
    turn = as_dict(output, "output")
    name = "tool_call_protocol"
    trajectory = [
        as_dict(m, "trajectory message") for m in as_list(turn.get("trajectory"), "output.trajectory")
    ]
    if not trajectory:
        calls = tool_call_names(turn)
        if ADD not in calls:
            return Evaluation(name=name, value=1.0, comment="No add_item_to_order in this turn")
        ok = LOOKUP in calls[: calls.index(ADD)]
        return Evaluation(
            name=name,
            value=1.0 if ok else 0.0,
            comment=("lookup before first add" if ok else "add_item_to_order before any lookup")
            + " (checked by tool names only: no trajectory)",
        )
    looked_up_names: set[str] = set()
    looked_up_ids: set[str] = set()
    lookup_call_ids: set[str] = set()
    adds = 0
    unverified: list[str] = []
    for message in trajectory:
        if message.get("type") == "tool" and message.get("tool_call_id") in lookup_call_ids:
            found = _parse_tool_content(message.get("content"))
            if found.get("item_id"):
                looked_up_ids.add(str(found["item_id"]))
            if found.get("name"):
                looked_up_names.add(_normalise(str(found["name"])))
        for call in message.get("tool_calls") or []:
            call = as_dict(call, "tool call")
            args = as_dict(call.get("args"), "tool call args")
            if call.get("name") == LOOKUP:
                lookup_call_ids.add(str(call.get("id")))
                looked_up_names.add(_normalise(str(args.get("item_name", ""))))
            elif call.get("name") == ADD:
                adds += 1
                item_id = str(args.get("item_id", ""))
                item_name = _normalise(str(args.get("item_name", "")))
                if item_id not in looked_up_ids and (not item_name or item_name not in looked_up_names):
                    unverified.append(item_id or item_name or "?")
    if adds == 0:
        return Evaluation(name=name, value=1.0, comment="No add_item_to_order in this turn")
    if unverified:
        return Evaluation(
            name=name,
            value=0.0,
            comment=f"Added without a prior lookup of that item: {unverified}",
            metadata={"unverified": unverified, "adds": adds},
        )
    return Evaluation(name=name, value=1.0, comment=f"All {adds} add(s) preceded by a lookup of the item")


def _matches(patterns: list[str], text: str) -> bool:
    return any(re.search(p, text, flags=re.IGNORECASE) for p in patterns)


def readback_and_confirmation(
    previous_response: str,
    utterance: str,
    *,
    readback_patterns: list[str] | None = None,
    confirm_patterns: list[str] | None = None,
    reject_patterns: list[str] | None = None,
) -> tuple[bool, bool]:
    """Whether the agent's previous reply read the order back, and whether the customer's answer
    confirmed it (a confirmation without a rejection word), by the patterns above unless given."""
    read_back = bool(previous_response) and _matches(
        readback_patterns or READBACK_PATTERNS, previous_response
    )
    confirmed = _matches(confirm_patterns or CONFIRM_PATTERNS, utterance) and not _matches(
        reject_patterns or REJECT_PATTERNS, utterance
    )
    return read_back, confirmed


@register("finalize_after_confirmation", inline=True, reference_free=True)
def finalize_after_confirmation(
    *,
    input: Any,
    output: Any,
    expected_output: Any = None,
    metadata: Any = None,
    readback_patterns: list[str] | None = None,
    confirm_patterns: list[str] | None = None,
    reject_patterns: list[str] | None = None,
    **kwargs: Any,
) -> Evaluation:
    """finalize_order only after the previous reply read the order back and the customer confirmed.

    Read-back and confirmation are recognised with regular expressions (overridable via args);
    turns without finalize_order score 1.0.
    """
    name = "finalize_after_confirmation"
    if FINALIZE not in tool_call_names(as_dict(output, "output")):
        return Evaluation(name=name, value=1.0, comment="No finalize_order in this turn")
    data = as_dict(input, "input")
    read_back, confirmed = readback_and_confirmation(
        str(data.get("previous_response") or ""),
        str(data.get("customer_utterance") or data.get("query") or ""),
        readback_patterns=readback_patterns,
        confirm_patterns=confirm_patterns,
        reject_patterns=reject_patterns,
    )
    meta = {"read_back": read_back, "confirmed": confirmed}
    if read_back and confirmed:
        return Evaluation(
            name=name, value=1.0, comment="Finalized after read-back and confirmation", metadata=meta
        )
    missing = [
        what for what, ok in (("order read-back", read_back), ("customer confirmation", confirmed)) if not ok
    ]
    return Evaluation(
        name=name, value=0.0, comment=f"finalize_order called without {' and '.join(missing)}", metadata=meta
    )
