"""How a refused dataset item is named: counted from 1, with its JSONL line or else its id.

``item 3 (line 3)`` in a JSONL file (items count from 1, as its lines do), ``item 3 (id 'x')``
when the item has an id, ``item 3`` otherwise; a format's own list reads the same way
(``case 5 (id 'golden-005')``, ``test case 2``). :func:`problem_lines` writes the errors of a
``ValidationError`` one a line, each a sentence of :mod:`yardstick.api.validation_messages`
(``item 2 (line 2): unknown field 'expected_ouput'; did you mean 'expected_output'? …``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from yardstick.api.validation_messages import Loc, describe_errors, location

__all__ = ["item_label", "problem_lines"]


def item_label(index: int, raw: Any = None, line: int | None = None, noun: str = "item") -> str:
    """The item at ``index`` (from 0) as ``item 3 (line 3)`` / ``item 3 (id 'x')`` / ``item 3``."""
    if line is not None:
        return f"{noun} {index + 1} (line {line})"
    item_id = raw.get("id") if isinstance(raw, Mapping) else None
    return f"{noun} {index + 1} (id {item_id!r})" if isinstance(item_id, str) else f"{noun} {index + 1}"


def problem_lines(
    errors: ValidationError | Sequence[ErrorDetails],
    model: type[BaseModel],
    raw_items: Any,
    *,
    lines: Sequence[int] | None = None,
    key: str = "items",
    noun: str = "item",
) -> str:
    """``  - item 3 (line 3): …`` a problem (the first ten): ``model`` was validated, its ``key``
    list was ``raw_items`` (read from the lines ``lines`` of a JSONL file)."""

    def locate(loc: Loc) -> str:
        if loc[:1] != (key,) or len(loc) < 2 or not isinstance(loc[1], int):
            return location(loc)
        index = loc[1]
        raw = raw_items[index] if isinstance(raw_items, list) and index < len(raw_items) else None
        line = lines[index] if lines is not None and index < len(lines) else None
        rest = location(loc[2:])
        return item_label(index, raw, line, noun) + (f", {rest}" if rest else "")

    return "\n".join(
        f"  - {sentence}" for sentence in describe_errors(errors, model, limit=10, locate=locate)
    )
