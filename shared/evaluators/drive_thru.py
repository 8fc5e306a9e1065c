"""The drive-thru evaluators: order correctness, tool-call protocol, hallucinated items.

Output shape: ``AgentInvokeResponse.model_dump()`` (``order_items``, ``tool_calls``, …);
expected output ``{"expected_items": [order lines]}``; metadata ``{"category", "difficulty"}``.
Each score is higher-is-better in [0, 1]; a drop of more than 0.05 is a regression.
"""

from __future__ import annotations

from typing import Any

from shared.evaluators.menu_ids import menu_item_ids
from shared.evaluators.order_matching import compare_orders
from shared.evaluators.payload import as_dict, as_list, require_key, tool_call_names
from shared.evaluators.registry import register
from yardstick.api.evaluation import Evaluation
from yardstick.api.metric_spec import MetricSpec

LOOKUP = "lookup_menu_item"
ADD = "add_item_to_order"


def _names(lines: list[Any]) -> list[str]:
    named = [as_dict(line, "order line") for line in lines]
    return [str(line.get("name") or line.get("item_id")) for line in named]


@register("order_correctness", inline=True, metrics={"order_correctness": MetricSpec.higher(primary=True)})
def order_correctness(
    *, input: Any = None, output: Any, expected_output: Any, metadata: Any = None, **kwargs: Any
) -> Evaluation:
    """Weighted partial credit (name 40 / quantity 30 / modifiers 20 / size 10) per item_id."""
    expected = as_list(require_key(expected_output, "expected_items", "order_correctness"), "expected_items")
    actual = as_list(as_dict(output, "output").get("order_items"), "output.order_items")
    return score_order("order_correctness", expected, actual)


def score_order(name: str, expected: list[Any], actual: list[Any]) -> Evaluation:
    """The partial-credit score of an order against the expected one (empty sides included)."""
    if not expected and not actual:
        return Evaluation(name=name, value=1.0, comment="Correctly added no items")
    if not expected:
        return Evaluation(name=name, value=0.0, comment=f"Expected no items but got: {_names(actual)}")
    if not actual:
        return Evaluation(name=name, value=0.0, comment=f"Expected {_names(expected)} but order is empty")
    result = compare_orders(expected, actual)
    problems = [f"{m.item_id}: {', '.join(m.differences)}" for m in result.matched if m.differences]
    if result.missing:
        problems.append(f"missing {result.missing}")
    if result.extra:
        problems.append(f"unexpected {result.extra}")
    comment = "All items match" if not problems else "; ".join(problems)
    return Evaluation(
        name=name,
        value=result.score,
        comment=comment,
        metadata={
            "line_scores": {m.item_id: m.score for m in result.matched},
            "missing": result.missing,
            "extra": result.extra,
        },
    )


@register("tool_call_accuracy", inline=True, metrics={"tool_call_accuracy": MetricSpec.higher()})
def tool_call_accuracy(
    *, input: Any = None, output: Any, expected_output: Any, metadata: Any = None, **kwargs: Any
) -> Evaluation:
    """Lookup-before-add protocol: 1.0 / 0.5 (wrong order) / 0.3 (one of the two) / 0.0 (neither)."""
    expected = as_list(require_key(expected_output, "expected_items", "tool_call_accuracy"), "expected_items")
    calls = tool_call_names(as_dict(output, "output"))
    name = "tool_call_accuracy"
    has_lookup, has_add = LOOKUP in calls, ADD in calls
    meta = {"tool_calls": calls}
    if not expected:
        if has_add:
            return Evaluation(
                name=name,
                value=0.0,
                comment="No items expected but add_item_to_order was called",
                metadata=meta,
            )
        return Evaluation(
            name=name, value=1.0, comment="Correct: no item added when none expected", metadata=meta
        )
    if has_lookup and has_add:
        if calls.index(LOOKUP) < calls.index(ADD):
            return Evaluation(name=name, value=1.0, comment="Correct: lookup before add", metadata=meta)
        return Evaluation(
            name=name, value=0.5, comment="Both called but add came before lookup", metadata=meta
        )
    if has_lookup or has_add:
        only = LOOKUP if has_lookup else ADD
        return Evaluation(name=name, value=0.3, comment=f"Only {only} was called", metadata=meta)
    return Evaluation(
        name=name,
        value=0.0,
        comment="Neither lookup nor add was called though items were expected",
        metadata=meta,
    )


@register(
    "no_hallucinated_items",
    inline=True,
    reference_free=True,
    metrics={"no_hallucinated_items": MetricSpec.higher(primary=True)},
)
def no_hallucinated_items(
    *,
    input: Any = None,
    output: Any,
    expected_output: Any = None,
    metadata: Any = None,
    menu_path: str | None = None,
    valid_item_ids: list[str] | None = None,
    **kwargs: Any,
) -> Evaluation:
    """1.0 when every added item_id is on the menu, else 0.0 naming the strays.

    Reads ``output.order_items``; a trace has none, so there the items are those the model asked
    ``add_item_to_order`` to add (its calls' ``item_id`` arguments, refused ones included)."""
    valid = frozenset(valid_item_ids) if valid_item_ids is not None else menu_item_ids(menu_path)
    out = as_dict(output, "output")
    if "order_items" in out:
        lines = [as_dict(line, "order line") for line in as_list(out["order_items"], "output.order_items")]
    else:
        lines = _requested_items(out)
    strays = [str(line.get("item_id")) for line in lines if line.get("item_id") not in valid]
    name = "no_hallucinated_items"
    if strays:
        return Evaluation(
            name=name, value=0.0, comment=f"Not on the menu: {strays}", metadata={"hallucinated": strays}
        )
    return Evaluation(name=name, value=1.0, comment=f"All {len(lines)} added item(s) are on the menu")


def _requested_items(output: dict[str, Any]) -> list[dict[str, Any]]:
    """The ``add_item_to_order`` calls of a trace's ``tool_calls``, as lines with their ``item_id``."""
    calls = [as_dict(call, "tool call") for call in as_list(output.get("tool_calls"), "output.tool_calls")]
    return [
        {"item_id": arguments.get("item_id")}
        for call in calls
        if call.get("name") == "add_item_to_order"
        for arguments in [call.get("arguments")]
        if isinstance(arguments, dict) and "item_id" in arguments
    ]
