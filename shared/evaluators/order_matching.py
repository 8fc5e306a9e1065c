"""The drive-thru eval's weighted partial-credit comparison of an actual order with the expected one.

Lines are matched by ``item_id`` (order-independent). A matched line scores
0.4 x name equal (case-insensitive) + 0.3 x min(qty)/max(qty) + 0.2 x Jaccard of modifier ids
(both empty = 1) + 0.1 x size equal (missing size = "regular"). The order score is the sum of
matched-line scores divided by the number of distinct item ids on both sides together, so a
missed line and an extra line each cost their share.

If one side lists the same ``item_id`` on several lines (e.g. one Sausage McMuffin with egg and
one without), those lines are merged before matching: quantities are summed, modifier ids are
unioned, and name and size are taken from the first such line.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from shared.evaluators.payload import MalformedPayload, as_dict, as_list

WEIGHT_NAME = 0.4
WEIGHT_QUANTITY = 0.3
WEIGHT_MODIFIERS = 0.2
WEIGHT_SIZE = 0.1
DEFAULT_SIZE = "regular"


class Line(BaseModel):
    """One order line, merged per item_id."""

    item_id: str
    name: str = ""
    quantity: int = 1
    size: str = DEFAULT_SIZE
    modifier_ids: frozenset[str] = Field(default_factory=frozenset)


class LineComparison(BaseModel):
    item_id: str
    score: float
    differences: list[str]


class OrderComparison(BaseModel):
    score: float
    matched: list[LineComparison]
    missing: list[str] = Field(description="Expected item ids the order lacks")
    extra: list[str] = Field(description="Item ids in the order that were not expected")


def _line(raw: Any) -> Line:
    data = as_dict(raw, "order line")
    if not data.get("item_id"):
        raise MalformedPayload(f"order line without item_id: {data!r}")
    modifiers = as_list(data.get("modifiers"), "order line modifiers")
    ids = frozenset(
        str(m["modifier_id"]) if isinstance(m, dict) and "modifier_id" in m else str(m) for m in modifiers
    )
    quantity = data.get("quantity")
    return Line(
        item_id=str(data["item_id"]),
        name=str(data.get("name") or ""),
        quantity=1 if quantity is None else int(quantity),
        size=str(data.get("size") or DEFAULT_SIZE),
        modifier_ids=ids,
    )


def merge_lines(raw_lines: list[Any]) -> dict[str, Line]:
    """Lines keyed by item_id; repeated ids are merged (see module docstring)."""
    merged: dict[str, Line] = {}
    for raw in raw_lines:
        line = _line(raw)
        first = merged.get(line.item_id)
        if first is None:
            merged[line.item_id] = line
        else:
            merged[line.item_id] = first.model_copy(
                update={
                    "quantity": first.quantity + line.quantity,
                    "modifier_ids": first.modifier_ids | line.modifier_ids,
                }
            )
    return merged


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    union = a | b
    return 1.0 if not union else len(a & b) / len(union)


def compare_line(expected: Line, actual: Line) -> LineComparison:
    differences: list[str] = []
    name_ok = expected.name.strip().lower() == actual.name.strip().lower()
    if not name_ok:
        differences.append(f"name {actual.name!r} != {expected.name!r}")
    high = max(expected.quantity, actual.quantity)
    qty_ratio = 1.0 if high <= 0 else max(0, min(expected.quantity, actual.quantity)) / high
    if expected.quantity != actual.quantity:
        differences.append(f"quantity {actual.quantity} != {expected.quantity}")
    modifiers = _jaccard(expected.modifier_ids, actual.modifier_ids)
    if expected.modifier_ids != actual.modifier_ids:
        differences.append(f"modifiers {sorted(actual.modifier_ids)} != {sorted(expected.modifier_ids)}")
    size_ok = expected.size.strip().lower() == actual.size.strip().lower()
    if not size_ok:
        differences.append(f"size {actual.size!r} != {expected.size!r}")
    score = (
        WEIGHT_NAME * name_ok
        + WEIGHT_QUANTITY * qty_ratio
        + WEIGHT_MODIFIERS * modifiers
        + WEIGHT_SIZE * size_ok
    )
    return LineComparison(item_id=expected.item_id, score=round(score, 6), differences=differences)


def compare_orders(expected_lines: list[Any], actual_lines: list[Any]) -> OrderComparison:
    """Compare two non-empty orders (empty sides are decided by the evaluator)."""
    expected = merge_lines(expected_lines)
    actual = merge_lines(actual_lines)
    all_ids = expected.keys() | actual.keys()
    matched = [compare_line(expected[i], actual[i]) for i in sorted(expected.keys() & actual.keys())]
    total = sum(m.score for m in matched) / len(all_ids) if all_ids else 1.0
    return OrderComparison(
        score=round(min(1.0, max(0.0, total)), 6),
        matched=matched,
        missing=sorted(expected.keys() - actual.keys()),
        extra=sorted(actual.keys() - expected.keys()),
    )
