"""Domain models of the drive-thru agent: menu, items, modifiers, orders. No prices."""

from __future__ import annotations

import json
import uuid
from enum import StrEnum
from pathlib import Path
from typing import Any, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator


class Size(StrEnum):
    SNACK = "snack"
    SMALL = "small"
    MEDIUM = "medium"
    LARGE = "large"
    REGULAR = "regular"


class CategoryName(StrEnum):
    BREAKFAST = "breakfast"
    BEEF_PORK = "beef-pork"
    CHICKEN_FISH = "chicken-fish"
    SALADS = "salads"
    SNACKS_SIDES = "snacks-sides"
    DESSERTS = "desserts"
    BEVERAGES = "beverages"
    COFFEE_TEA = "coffee-tea"
    SMOOTHIES_SHAKES = "smoothies-shakes"


class IncompatibleItemsError(ValueError):
    """Two items that are not the same configuration were added or compared."""


class Modifier(BaseModel):
    """An item modification, e.g. ``No Cheese``. Hashable and equal by ``(modifier_id, name)``."""

    model_config = ConfigDict(frozen=True)

    modifier_id: str = Field(min_length=1)
    name: str = Field(min_length=1)

    def __hash__(self) -> int:
        return hash((self.modifier_id, self.name))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Modifier):
            return NotImplemented
        return (self.modifier_id, self.name) == (other.modifier_id, other.name)


class Item(BaseModel):
    """Dual purpose: a menu definition (``available_modifiers``) and an order line (``quantity``,
    ``size``, ``modifiers``)."""

    item_id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    category_name: CategoryName
    default_size: Size = Size.REGULAR
    size: Size | None = Field(default=None, description="Filled from default_size when not given")
    quantity: int = Field(default=1, ge=1)
    modifiers: list[Modifier] = Field(default_factory=list)
    available_modifiers: list[Modifier] = Field(default_factory=list)

    @model_validator(mode="after")
    def _default_size(self) -> Self:
        if self.size is None:
            self.size = self.default_size
        return self

    def same_configuration(self, other: Item) -> bool:
        """Same id, name, category, size and modifier set: the lines merge into one."""
        return (
            self.item_id == other.item_id
            and self.name == other.name
            and self.category_name == other.category_name
            and self.size == other.size
            and set(self.modifiers) == set(other.modifiers)
        )

    def _require_same(self, other: object, operation: str) -> Item:
        if not isinstance(other, Item):
            raise TypeError(f"cannot {operation} Item and {type(other).__name__}")
        if not self.same_configuration(other):
            raise IncompatibleItemsError(
                f"cannot {operation} {self.name!r} ({self.item_id}) and {other.name!r} ({other.item_id}): "
                "only the same item with the same size and modifiers can be combined"
            )
        return other

    def __add__(self, other: object) -> Item:
        same = self._require_same(other, "add")
        return self.model_copy(update={"quantity": self.quantity + same.quantity})

    def __lt__(self, other: object) -> bool:
        return self.quantity < self._require_same(other, "compare").quantity

    def __le__(self, other: object) -> bool:
        return self.quantity <= self._require_same(other, "compare").quantity

    def __gt__(self, other: object) -> bool:
        return self.quantity > self._require_same(other, "compare").quantity

    def __ge__(self, other: object) -> bool:
        return self.quantity >= self._require_same(other, "compare").quantity


class Location(BaseModel):
    id: str
    name: str
    address: str
    city: str
    state: str
    zip: str
    country: str

    @property
    def one_line_address(self) -> str:
        return f"{self.address}, {self.city}, {self.state} {self.zip}"


class Menu(BaseModel):
    menu_id: str
    menu_name: str
    menu_version: str
    location: Location
    items: list[Item]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Menu:
        return cls.model_validate(data)

    @classmethod
    def from_json_file(cls, path: str | Path) -> Menu:
        file = Path(path)
        if not file.is_file():
            raise FileNotFoundError(f"menu file {file} does not exist: set MENU_PATH to a menu JSON file")
        return cls.from_dict(json.loads(file.read_text(encoding="utf-8")))

    def item_by_id(self, item_id: str) -> Item | None:
        return next((item for item in self.items if item.item_id == item_id), None)


class Order(BaseModel):
    """A customer's order in progress. ``order + item`` returns a new order with the same id."""

    order_id: str = Field(default_factory=lambda: str(uuid.uuid4()))
    items: list[Item] = Field(default_factory=list)

    def __add__(self, other: object) -> Order:
        if not isinstance(other, Item):
            return NotImplemented
        items = list(self.items)
        for index, existing in enumerate(items):
            if existing.same_configuration(other):
                items[index] = existing + other
                break
        else:
            items.append(other)
        return Order(order_id=self.order_id, items=items)

    @property
    def item_count(self) -> int:
        return sum(item.quantity for item in self.items)
