"""Name matching for menu lookups: tolerant of casing, punctuation and plurals, never guessing
between two distinct items."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

from services.agent.domain import Item, Menu

_PUNCTUATION = re.compile(r"[^a-z0-9\s]")
_ARTICLES = {"a", "an", "the", "some", "one", "order", "of"}
# Spoken forms that are one word where the menu uses two (or an abbreviation).
_ALIASES: dict[str, tuple[str, ...]] = {
    "hashbrown": ("hash", "brown"),
    "hashbrowns": ("hash", "brown"),
    "oj": ("orange", "juice"),
    "pancake": ("hotcake",),
    "pancakes": ("hotcake",),
}
_SINGULAR_EXCEPTIONS = {"has", "was", "this", "is", "us", "gas", "plus", "bus", "yes", "its", "ss"}
SUGGESTION_LIMIT = 3


def words(text: str) -> list[str]:
    """Lower-case words of ``text``; ``&`` reads as ``and``, apostrophes vanish, other marks split."""
    lowered = text.lower().replace("&", " and ").replace("'", "").replace("\u2019", "")
    return _PUNCTUATION.sub(" ", lowered).split()


def singular(word: str) -> str:
    """Crude singular form, applied the same way to menu names and requests."""
    if word in _SINGULAR_EXCEPTIONS or len(word) <= 3:
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes", "sses")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def name_key(text: str) -> tuple[str, ...]:
    """The comparable form of an item name: singular words, aliases expanded."""
    out: list[str] = []
    for word in words(text):
        out.extend(_ALIASES.get(word, (singular(word),)))
    return tuple(out)


def request_key(text: str) -> tuple[str, ...]:
    """Like :func:`name_key`, minus leading articles ("a", "the", "an order of")."""
    key = list(name_key(text))
    while key and key[0] in _ARTICLES:
        key.pop(0)
    return tuple(key)


@dataclass(frozen=True)
class MatchResult:
    item: Item | None
    suggestions: list[Item] = field(default_factory=list)
    ambiguous: bool = False


def match_menu_item(menu: Menu, requested: str) -> MatchResult:
    """Exact match on the normalised name, else up to three suggestions.

    ``ambiguous`` is set when the request names a part that several items share (e.g. "McMuffin"):
    the caller should ask which one is meant rather than pick one.
    """
    key = request_key(requested)
    if not key:
        return MatchResult(item=None)
    for item in menu.items:
        if name_key(item.name) == key:
            return MatchResult(item=item)
    wanted = set(key)
    containing = [item for item in menu.items if wanted <= set(name_key(item.name))]
    if containing:
        return MatchResult(
            item=None, suggestions=containing[:SUGGESTION_LIMIT], ambiguous=len(containing) > 1
        )
    return MatchResult(item=None, suggestions=_similar(menu, key))


def _similar(menu: Menu, key: tuple[str, ...]) -> list[Item]:
    """Items sharing a meaningful word with the request, then close spellings."""
    meaningful = {word for word in key if len(word) > 2 and word not in {"and", "with"}}
    scored: list[tuple[float, int, Item]] = []
    joined = " ".join(key)
    for index, item in enumerate(menu.items):
        item_key = name_key(item.name)
        overlap = len(meaningful & set(item_key))
        ratio = difflib.SequenceMatcher(None, joined, " ".join(item_key)).ratio()
        if overlap or ratio >= 0.75:
            scored.append((overlap + ratio, -index, item))
    scored.sort(key=lambda entry: (entry[0], entry[1]), reverse=True)
    return [item for _, _, item in scored[:SUGGESTION_LIMIT]]
