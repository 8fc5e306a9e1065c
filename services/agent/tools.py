"""The agent's four tools. Pure functions of their arguments and the injected state:
they return result dicts the model reads, never raise for bad input, and never change state
themselves (the graph's ``update_order`` node applies ``add_item_to_order`` results)."""

from __future__ import annotations

from typing import Annotated, Any

from langchain_core.tools import BaseTool, tool
from langgraph.prebuilt import InjectedState

from services.agent.domain import Menu, Modifier, Order, Size
from services.agent.matching import match_menu_item

MAX_QUANTITY = 20

LOOKUP_MENU_ITEM = "lookup_menu_item"
ADD_ITEM_TO_ORDER = "add_item_to_order"
GET_CURRENT_ORDER = "get_current_order"
FINALIZE_ORDER = "finalize_order"


def _modifier_dicts(modifiers: list[Modifier]) -> list[dict[str, str]]:
    return [{"modifier_id": m.modifier_id, "name": m.name} for m in modifiers]


@tool(LOOKUP_MENU_ITEM)
def lookup_menu_item(item_name: str, menu: Annotated[Menu, InjectedState("menu")]) -> dict[str, Any]:
    """Look up a menu item by name. Use this BEFORE adding any item to the order to verify it
    exists on the menu. Returns the matched item's item_id, name, category_name, default_size and
    available_modifiers. If there is no exact match, returns found=false with up to 3 suggestions;
    ambiguous=true means several menu items match and you must ask the customer which one.

    Args:
        item_name: The item name as spoken by the customer, e.g. "egg mcmuffins".
    """
    match = match_menu_item(menu, item_name)
    if match.item is not None:
        item = match.item
        return {
            "found": True,
            "item_id": item.item_id,
            "name": item.name,
            "category_name": item.category_name.value,
            "default_size": item.default_size.value,
            "available_modifiers": _modifier_dicts(item.available_modifiers),
        }
    names = [item.name for item in match.suggestions]
    if match.ambiguous:
        message = f"'{item_name}' matches several menu items: ask the customer which one they want."
    elif names:
        message = f"'{item_name}' is not on the menu. Similar items: {', '.join(names)}."
    else:
        message = f"'{item_name}' is not on the menu and nothing similar is."
    return {
        "found": False,
        "requested": item_name,
        "ambiguous": match.ambiguous,
        "suggestions": names,
        "message": message,
    }


def _error(message: str, **context: Any) -> dict[str, Any]:
    return {"added": False, "error": message, **context}


@tool(ADD_ITEM_TO_ORDER)
def add_item_to_order(
    item_id: str,
    item_name: str,
    category_name: str,
    menu: Annotated[Menu, InjectedState("menu")],
    quantity: int = 1,
    size: str | None = None,
    modifiers: list[dict[str, str]] | None = None,
) -> dict[str, Any]:
    """Add an item to the customer's order. Only call this AFTER lookup_menu_item confirmed the
    item; pass the exact item_id, item_name and category_name it returned. The same item with
    the same size and modifiers merges with an existing order line (quantities add up).

    Args:
        item_id: The item_id from the lookup_menu_item result.
        item_name: Exact menu item name from the lookup_menu_item result.
        category_name: category_name from the lookup_menu_item result.
        quantity: How many (1 to 20, default 1).
        size: One of snack, small, medium, large, regular; omit to use the item's default size.
        modifiers: Objects {"modifier_id", "name"} taken only from the item's available_modifiers.
    """
    item = menu.item_by_id(item_id)
    if item is None:
        return _error(
            f"item_id '{item_id}' is not on the menu: call lookup_menu_item and use its item_id",
            item_id=item_id,
        )
    if not 1 <= quantity <= MAX_QUANTITY:
        return _error(f"quantity must be between 1 and {MAX_QUANTITY}, got {quantity}", item_id=item_id)
    if size is not None and size not in {s.value for s in Size}:
        allowed = ", ".join(s.value for s in Size)
        return _error(f"size '{size}' is not one of: {allowed}", item_id=item_id)
    chosen: list[Modifier] = []
    for raw in modifiers or []:
        candidate = next(
            (
                m
                for m in item.available_modifiers
                if m.modifier_id == raw.get("modifier_id")
                or m.name.lower() == str(raw.get("name", "")).lower()
            ),
            None,
        )
        if candidate is None:
            allowed = ", ".join(m.name for m in item.available_modifiers) or "none"
            return _error(
                f"modifier {raw} is not available for {item.name} (available: {allowed})", item_id=item_id
            )
        if candidate not in chosen:
            chosen.append(candidate)
    return {
        "added": True,
        "item_id": item.item_id,
        "item_name": item.name,
        "category_name": item.category_name.value,
        "quantity": quantity,
        "size": size or item.default_size.value,
        "modifiers": _modifier_dicts(chosen),
    }


def order_summary(order: Order) -> dict[str, Any]:
    return {
        "order_id": order.order_id,
        "items": [
            {
                "item_id": item.item_id,
                "name": item.name,
                "category_name": item.category_name.value,
                "quantity": item.quantity,
                "size": (item.size or item.default_size).value,
                "modifiers": _modifier_dicts(item.modifiers),
            }
            for item in order.items
        ],
        "item_count": order.item_count,
    }


@tool(GET_CURRENT_ORDER)
def get_current_order(current_order: Annotated[Order, InjectedState("current_order")]) -> dict[str, Any]:
    """Get the current order: order_id, items with quantity, size and modifiers, and item_count.
    Use it when the customer asks what they ordered, or before finalizing to read the order back.
    Prices are not available: never quote a total."""
    return order_summary(current_order)


@tool(FINALIZE_ORDER)
def finalize_order(current_order: Annotated[Order, InjectedState("current_order")]) -> dict[str, Any]:
    """Finalize and submit the order. Call this ONLY after the customer said they are done, you
    read the order back with get_current_order, and the customer confirmed it. After calling this,
    thank the customer."""
    if not current_order.items:
        return {
            "finalized": False,
            "order_id": current_order.order_id,
            "error": "the order is empty: ask the customer what they would like first",
        }
    return {
        "finalized": True,
        "order_id": current_order.order_id,
        "item_count": current_order.item_count,
        "message": "Order has been submitted.",
    }


TOOLS: list[BaseTool] = [lookup_menu_item, add_item_to_order, get_current_order, finalize_order]
