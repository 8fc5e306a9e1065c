"""Properties of the weighted order comparison (hypothesis)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shared.evaluators.drive_thru import order_correctness
from shared.evaluators.order_matching import compare_orders, merge_lines

pytestmark = pytest.mark.unit

ITEM_IDS = ["egg-mcmuffin", "hash-browns", "hotcakes", "sausage-burrito", "coffee", "big-mac"]
MODIFIERS = ["egg", "cheese", "no-butter", "extra-sausage"]


@st.composite
def order_line(draw: st.DrawFn, item_id: str | None = None) -> dict[str, Any]:
    return {
        "item_id": item_id or draw(st.sampled_from(ITEM_IDS)),
        "name": draw(st.sampled_from(["Egg McMuffin", "egg mcmuffin", "Hash Browns", "Other"])),
        "quantity": draw(st.integers(min_value=1, max_value=6)),
        "size": draw(st.sampled_from(["regular", "small", "medium", "large"])),
        "modifiers": [{"modifier_id": m, "name": m} for m in draw(st.sets(st.sampled_from(MODIFIERS)))],
    }


orders = st.lists(order_line(), max_size=6, unique_by=lambda line: str(line["item_id"]))
orders_with_repeats = st.lists(order_line(), max_size=8)


def score(expected: list[dict[str, Any]], actual: list[dict[str, Any]]) -> float:
    value = order_correctness(
        output={"order_items": actual}, expected_output={"expected_items": expected}
    ).value
    assert isinstance(value, float)
    return value


@settings(max_examples=100, deadline=None)
@given(orders_with_repeats, orders_with_repeats)
def test_score_is_always_between_zero_and_one(
    expected: list[dict[str, Any]], actual: list[dict[str, Any]]
) -> None:
    assert 0.0 <= score(expected, actual) <= 1.0


@settings(max_examples=100, deadline=None)
@given(orders_with_repeats)
def test_identical_orders_score_one(order: list[dict[str, Any]]) -> None:
    assert score(order, list(order)) == 1.0


@settings(max_examples=100, deadline=None)
@given(orders, orders, st.randoms(use_true_random=False))
def test_line_order_does_not_matter(
    expected: list[dict[str, Any]], actual: list[dict[str, Any]], rnd: Any
) -> None:
    shuffled_expected, shuffled_actual = list(expected), list(actual)
    rnd.shuffle(shuffled_expected)
    rnd.shuffle(shuffled_actual)
    assert score(expected, actual) == score(shuffled_expected, shuffled_actual)


@settings(max_examples=100, deadline=None)
@given(orders.filter(bool), orders.filter(bool))
def test_score_is_symmetric_in_disjoint_extras(
    expected: list[dict[str, Any]], actual: list[dict[str, Any]]
) -> None:
    # Every distinct id on either side is one share of the denominator.
    result = compare_orders(expected, actual)
    ids = {str(line["item_id"]) for line in expected} | {str(line["item_id"]) for line in actual}
    assert len(result.matched) + len(result.missing) + len(result.extra) == len(ids)
    assert result.score == pytest.approx(sum(m.score for m in result.matched) / len(ids), abs=1e-6)


def test_merge_keeps_first_name_and_size_and_unions_modifiers() -> None:
    merged = merge_lines(
        [
            {
                "item_id": "a",
                "name": "A",
                "quantity": 1,
                "size": "small",
                "modifiers": [{"modifier_id": "x", "name": "x"}],
            },
            {
                "item_id": "a",
                "name": "other",
                "quantity": 2,
                "size": "large",
                "modifiers": [{"modifier_id": "y", "name": "y"}],
            },
        ]
    )
    assert merged["a"].quantity == 3
    assert merged["a"].name == "A" and merged["a"].size == "small"
    assert merged["a"].modifier_ids == frozenset({"x", "y"})
