from __future__ import annotations

import json
import re

import pytest
from pydantic import ValidationError

from services.agent.domain import CategoryName, IncompatibleItemsError, Item, Menu, Modifier, Order, Size
from services.agent.settings import DEFAULT_MENU_PATH

pytestmark = pytest.mark.unit

NO_CHEESE = Modifier(modifier_id="no-cheese", name="No Cheese")
EXTRA_CHEESE = Modifier(modifier_id="extra-cheese", name="Extra Cheese")


def muffin(quantity: int = 1, modifiers: list[Modifier] | None = None, size: Size | None = None) -> Item:
    return Item(
        item_id="egg-mcmuffin",
        name="Egg McMuffin",
        category_name=CategoryName.BREAKFAST,
        quantity=quantity,
        modifiers=modifiers or [],
        size=size,
    )


def test_size_defaults_from_default_size() -> None:
    coffee = Item(item_id="coffee", name="Coffee", category_name="coffee-tea", default_size=Size.MEDIUM)
    assert coffee.size is Size.MEDIUM
    assert muffin().size is Size.REGULAR
    assert muffin(size=Size.LARGE).size is Size.LARGE


def test_quantity_must_be_at_least_one() -> None:
    with pytest.raises(ValidationError):
        muffin(quantity=0)


def test_identical_items_merge_quantities_regardless_of_modifier_order() -> None:
    merged = muffin(1, [NO_CHEESE, EXTRA_CHEESE]) + muffin(2, [EXTRA_CHEESE, NO_CHEESE])
    assert merged.quantity == 3
    assert set(merged.modifiers) == {NO_CHEESE, EXTRA_CHEESE}


@pytest.mark.parametrize(
    "other",
    [
        muffin(1, [NO_CHEESE]),
        muffin(1, size=Size.LARGE),
        Item(item_id="sausage-mcmuffin", name="Sausage McMuffin", category_name="breakfast"),
    ],
)
def test_different_items_refuse_to_merge(other: Item) -> None:
    with pytest.raises(IncompatibleItemsError, match="only the same item"):
        _ = muffin() + other


def test_quantity_comparisons_for_the_same_item() -> None:
    one, two = muffin(1), muffin(2)
    assert one < two and one <= two and two > one and two >= one
    assert not one > two
    with pytest.raises(IncompatibleItemsError):
        _ = one < muffin(2, [NO_CHEESE])


def test_modifier_is_hashable_and_equal_by_id_and_name() -> None:
    assert Modifier(modifier_id="no-cheese", name="No Cheese") == NO_CHEESE
    assert len({NO_CHEESE, Modifier(modifier_id="no-cheese", name="No Cheese")}) == 1
    assert Modifier(modifier_id="no-cheese", name="Hold Cheese") != NO_CHEESE


def test_order_add_merges_duplicates_appends_new_and_keeps_the_id() -> None:
    empty = Order()
    first = empty + muffin(1)
    second = first + muffin(2)
    third = second + muffin(1, [NO_CHEESE])
    assert empty.items == [] and first is not empty
    assert [i.quantity for i in second.items] == [3]
    assert [(i.quantity, i.modifiers) for i in third.items] == [(3, []), (1, [NO_CHEESE])]
    assert empty.order_id == first.order_id == third.order_id
    assert third.item_count == 4
    assert Order().order_id != empty.order_id


def test_menu_file_has_the_documented_shape_and_stable_ids() -> None:
    raw = json.loads(DEFAULT_MENU_PATH.read_text())
    assert set(raw) == {"menu_id", "menu_name", "menu_version", "location", "items"}
    assert set(raw["location"]) == {"id", "name", "address", "city", "state", "zip", "country"}
    for item in raw["items"]:
        assert set(item) == {"item_id", "name", "category_name", "default_size", "available_modifiers"}
    menu = Menu.from_json_file(DEFAULT_MENU_PATH)
    ids = [item.item_id for item in menu.items]
    assert len(ids) == len(set(ids))
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", i) for i in ids)
    names = {item.name for item in menu.items}
    assert {"Egg McMuffin", "Sausage McMuffin with Egg", "Hash Browns", "Hotcakes and Sausage"} <= names


def test_missing_menu_file_says_what_to_do() -> None:
    with pytest.raises(FileNotFoundError, match="MENU_PATH"):
        Menu.from_json_file("/nonexistent/menu.json")
