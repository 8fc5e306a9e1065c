from __future__ import annotations

from typing import Any

import pytest
from langchain_core.utils.function_calling import convert_to_openai_tool

from services.agent.domain import Item, Menu, Modifier, Order
from services.agent.tools import (
    MAX_QUANTITY,
    TOOLS,
    add_item_to_order,
    finalize_order,
    get_current_order,
    lookup_menu_item,
)

pytestmark = pytest.mark.unit


def lookup(menu: Menu, name: str) -> dict[str, Any]:
    result: dict[str, Any] = lookup_menu_item.invoke({"item_name": name, "menu": menu})
    return result


def add(menu: Menu, **args: Any) -> dict[str, Any]:
    base = {"item_id": "egg-mcmuffin", "item_name": "Egg McMuffin", "category_name": "breakfast"}
    result: dict[str, Any] = add_item_to_order.invoke(base | args | {"menu": menu})
    return result


def test_injected_state_is_hidden_from_the_model_schema() -> None:
    schemas = {
        t.name: set(convert_to_openai_tool(t)["function"]["parameters"].get("properties", {})) for t in TOOLS
    }
    assert schemas == {
        "lookup_menu_item": {"item_name"},
        "add_item_to_order": {"item_id", "item_name", "category_name", "quantity", "size", "modifiers"},
        "get_current_order": set(),
        "finalize_order": set(),
    }


@pytest.mark.parametrize(
    ("spoken", "item_id"),
    [
        ("Egg McMuffin", "egg-mcmuffin"),
        ("egg mcmuffin", "egg-mcmuffin"),
        ("Egg McMuffin!", "egg-mcmuffin"),
        ("egg mcmuffins", "egg-mcmuffin"),
        ("hash brown", "hash-browns"),
        ("hash browns", "hash-browns"),
        ("hashbrowns", "hash-browns"),
        ("Bacon, Egg & Cheese Biscuit", "bacon-egg-cheese-biscuit"),
        ("bacon egg and cheese biscuits", "bacon-egg-cheese-biscuit"),
        ("Sausage McMuffins with Egg", "sausage-mcmuffin-with-egg"),
        ("the Hotcakes and Sausage", "hotcakes-and-sausage"),
        ("OJ", "orange-juice"),
    ],
)
def test_lookup_is_tolerant_of_case_punctuation_and_plurals(menu: Menu, spoken: str, item_id: str) -> None:
    result = lookup(menu, spoken)
    assert result["found"] is True, result
    assert result["item_id"] == item_id
    item = menu.item_by_id(item_id)
    assert item is not None
    assert result["name"] == item.name
    assert result["available_modifiers"] == [m.model_dump() for m in item.available_modifiers]


@pytest.mark.parametrize(
    ("spoken", "expected"),
    [
        ("McMuffin", ["Egg McMuffin", "Sausage McMuffin", "Sausage McMuffin with Egg"]),
        ("a mcgriddle", ["Sausage McGriddles", "Bacon Egg & Cheese McGriddles"]),
    ],
)
def test_a_shared_part_of_several_names_is_ambiguous_not_guessed(
    menu: Menu, spoken: str, expected: list[str]
) -> None:
    result = lookup(menu, spoken)
    assert result["found"] is False
    assert result["ambiguous"] is True
    assert result["suggestions"] == expected


def test_not_on_menu_returns_at_most_three_suggestions(menu: Menu) -> None:
    big_mac = lookup(menu, "Big Mac")
    assert big_mac["found"] is False and big_mac["ambiguous"] is False
    assert big_mac["suggestions"] == []
    sausage_patty = lookup(menu, "sausage patty")
    assert sausage_patty["found"] is False
    assert 1 <= len(sausage_patty["suggestions"]) <= 3
    assert all("Sausage" in s for s in sausage_patty["suggestions"])


def test_add_returns_the_canonical_line(menu: Menu) -> None:
    result = add(menu, quantity=2, modifiers=[{"modifier_id": "no-cheese", "name": "No Cheese"}])
    assert result == {
        "added": True,
        "item_id": "egg-mcmuffin",
        "item_name": "Egg McMuffin",
        "category_name": "breakfast",
        "quantity": 2,
        "size": "regular",
        "modifiers": [{"modifier_id": "no-cheese", "name": "No Cheese"}],
    }


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ({"quantity": 0}, "quantity must be between 1 and"),
        ({"quantity": MAX_QUANTITY + 1}, "quantity must be between 1 and"),
        ({"size": "huge"}, "size 'huge' is not one of"),
        ({"modifiers": [{"modifier_id": "add-egg", "name": "Add Egg"}]}, "not available for Egg McMuffin"),
        ({"item_id": "big-mac"}, "not on the menu: call lookup_menu_item"),
    ],
)
def test_invalid_add_returns_an_error_result_instead_of_raising(
    menu: Menu, args: dict[str, Any], error: str
) -> None:
    result = add(menu, **args)
    assert result["added"] is False
    assert error in result["error"]


def test_get_current_order_and_finalize(menu: Menu) -> None:
    empty = Order()
    refused = finalize_order.invoke({"current_order": empty})
    assert refused["finalized"] is False and "empty" in refused["error"]

    item = menu.item_by_id("coffee")
    assert item is not None
    cream = Modifier(modifier_id="cream", name="Cream")
    order = empty + Item(**(item.model_dump() | {"quantity": 2, "size": "large", "modifiers": [cream]}))
    summary = get_current_order.invoke({"current_order": order})
    assert summary["order_id"] == empty.order_id
    assert summary["item_count"] == 2
    assert summary["items"][0] | {} == {
        "item_id": "coffee",
        "name": "Coffee",
        "category_name": "coffee-tea",
        "quantity": 2,
        "size": "large",
        "modifiers": [{"modifier_id": "cream", "name": "Cream"}],
    }
    done = finalize_order.invoke({"current_order": order})
    assert done["finalized"] is True and done["order_id"] == order.order_id
