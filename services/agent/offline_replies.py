"""What the offline model says: read-backs, confirmations, apologies, and modifier mapping."""

from __future__ import annotations

from typing import Any

from services.agent.matching import name_key
from services.agent.utterance import ModifierPhrase

CONFIRM_QUESTION = "Is that correct?"
_POLARITIES = {"no", "extra", "light", "add"}
_COUNT_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]


def map_modifier(phrase: ModifierPhrase, available: list[dict[str, Any]]) -> dict[str, str] | None:
    """The one available modifier the phrase names ("no cheese" → No Cheese, "with egg" → Add Egg)."""
    exact: list[dict[str, str]] = []
    partial: list[dict[str, str]] = []
    wanted = set(phrase.words)
    for modifier in available:
        key = list(name_key(str(modifier.get("name", ""))))
        polarity = key.pop(0) if key and key[0] in _POLARITIES else "add"
        if polarity != phrase.polarity or not wanted <= set(key):
            continue
        entry = {"modifier_id": str(modifier["modifier_id"]), "name": str(modifier["name"])}
        (exact if wanted == set(key) else partial).append(entry)
    if len(exact) == 1:
        return exact[0]
    return partial[0] if not exact and len(partial) == 1 else None


def count_word(quantity: int) -> str:
    return _COUNT_WORDS[quantity] if 0 <= quantity < len(_COUNT_WORDS) else str(quantity)


def describe_line(line: dict[str, Any]) -> str:
    """ "two large Coffee with Cream" from an add result or an order summary line."""
    name = line.get("item_name") or line.get("name") or "item"
    size = str(line.get("size") or "")
    sized = f"{size} {name}" if size and size != "regular" else str(name)
    text = f"{count_word(int(line.get('quantity', 1)))} {sized}"
    modifiers = [str(m["name"]) for m in line.get("modifiers", [])]
    if modifiers:
        text += " with " + " and ".join(modifiers)
    return text


def join_words(parts: list[str], last: str = "and") -> str:
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + f" {last} " + parts[-1]


def readback(summary: dict[str, Any], confirm: bool) -> str:
    lines = list(summary.get("items", []))
    if not lines:
        return "Your order is empty so far. What can I get for you?"
    text = "Here's your order: " + join_words([describe_line(line) for line in lines]) + "."
    return f"{text} {CONFIRM_QUESTION}" if confirm else f"{text} Anything else?"


def menu_overview(menu_names: list[str]) -> str:
    if not menu_names:
        return "We're serving breakfast this morning. What can I get for you?"
    return "This morning we have " + join_words(menu_names) + ". What can I get for you?"
