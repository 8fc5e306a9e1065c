"""How the offline model reads a customer utterance: intent, and for orders the requested items
(quantity, size, spoken name, modifier phrases). Menu names it knows (from the system prompt) are
recognised first, so "Sausage McMuffin with Egg" or "Hotcakes and Sausage" stay one item."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from services.agent.matching import name_key
from services.agent.phrases import (
    AFFIRMATIVE,
    AVAILABILITY,
    CHANGE_WORDS,
    DONE,
    FILLERS,
    GREETINGS,
    LIST_BREAKS,
    MODIFIER_STARTS,
    NEGATIVE,
    NUMBER_WORDS,
    NUMBERS,
    PREAMBLES,
    PRICE_WORDS,
    QUESTION_STARTS,
    READBACK,
    SEPARATOR,
    SIZES,
    SKIP,
    norm_tokens,
)


class Intent(StrEnum):
    ORDER = "order"
    AVAILABILITY = "availability"
    GREETING = "greeting"
    QUESTION = "question"
    DONE = "done"
    READBACK = "readback"
    AFFIRMATIVE = "affirmative"
    NEGATIVE = "negative"
    PRICE = "price"
    CHANGE = "change"
    UNCLEAR = "unclear"


@dataclass(frozen=True)
class ModifierPhrase:
    polarity: str  # "no" | "extra" | "light" | "add"
    words: tuple[str, ...]

    @property
    def text(self) -> str:
        return " ".join(((self.polarity,) if self.polarity != "add" else ()) + self.words)


@dataclass(frozen=True)
class ItemRequest:
    name: str  # canonical menu name when recognised, else the spoken words title-cased
    quantity: int = 1
    size: str | None = None
    modifiers: tuple[ModifierPhrase, ...] = ()


@dataclass(frozen=True)
class ParsedUtterance:
    intent: Intent
    items: list[ItemRequest] = field(default_factory=list)


@dataclass(frozen=True)
class _Known:
    name: str


_Token = str | _Known


def _starts(tokens: list[_Token], phrase: tuple[str, ...]) -> bool:
    return tuple(tokens[: len(phrase)]) == phrase


def _strip_leading(tokens: list[_Token], phrases: list[tuple[str, ...]], words: set[str]) -> list[_Token]:
    changed = True
    while tokens and changed:
        changed = False
        if tokens[0] in words or tokens[0] == SEPARATOR:
            tokens, changed = tokens[1:], True
            continue
        for phrase in phrases:
            if _starts(tokens, phrase):
                tokens, changed = tokens[len(phrase) :], True
                break
    return tokens


def _recognise(tokens: list[str], menu_names: list[str]) -> list[_Token]:
    """Replace each longest run of words spelling a menu name (commas inside ignored) by a marker."""
    keys = sorted(((name_key(n), n) for n in menu_names), key=lambda kn: len(kn[0]), reverse=True)
    out: list[_Token] = []
    i = 0
    while i < len(tokens):
        for key, name in keys:
            j, k = i, 0
            while j < len(tokens) and k < len(key):
                if tokens[j] == SEPARATOR and k > 0:
                    j += 1
                    continue
                if tokens[j] != key[k]:
                    break
                j, k = j + 1, k + 1
            if key and k == len(key):
                out.append(_Known(name))
                i = j
                break
        else:
            out.append(tokens[i])
            i += 1
    return out


def _segments(tokens: list[_Token]) -> list[list[_Token]]:
    segments: list[list[_Token]] = [[]]
    for index, token in enumerate(tokens):
        ahead = [t for t in tokens[index + 1 : index + 4] if t not in NUMBERS and t not in NUMBER_WORDS]
        starts_item = token == "with" and bool(ahead) and isinstance(ahead[0], _Known)
        if (isinstance(token, str) and token in LIST_BREAKS) or starts_item:
            segments.append([])
        else:
            segments[-1].append(token)
    merged: list[list[_Token]] = []
    for segment in filter(None, segments):
        previous = merged[-1] if merged else None
        continues = (
            previous is not None
            and any(t in MODIFIER_STARTS for t in previous)
            and not any(isinstance(t, _Known) for t in segment)
            and (segment[0] in MODIFIER_STARTS or (len(segment) <= 2 and segment[0] not in NUMBERS))
        )
        if previous is not None and continues:
            previous.extend(["and", *segment])
        else:
            merged.append(segment)
    return merged


def _modifier_phrases(tokens: list[str]) -> tuple[ModifierPhrase, ...]:
    phrases: list[ModifierPhrase] = []
    current: list[str] = []
    for token in [*tokens, "and"]:
        if token in {"and", ",", "with"}:
            if current:
                polarity, words = "add", current
                if current[0] in {"no", "without"}:
                    polarity, words = "no", current[1:]
                elif current[0] == "hold":
                    polarity, words = "no", [w for w in current[1:] if w != "the"]
                elif current[0] in {"extra", "more"}:
                    polarity, words = "extra", current[1:]
                elif current[0] == "light":
                    polarity, words = "light", current[1:]
                elif current[0] == "add":
                    words = current[1:]
                if words:
                    phrases.append(ModifierPhrase(polarity, tuple(words)))
            current = []
        else:
            current.append(token)
    return tuple(phrases)


def _item(segment: list[_Token], quantity_words: bool) -> ItemRequest | None:
    tokens = _strip_leading(segment, PREAMBLES, FILLERS)
    quantity = 1
    if tokens and isinstance(tokens[0], str):
        first = tokens[0]
        if first.isdigit():
            quantity, tokens = int(first), tokens[1:]
        elif first in NUMBERS or first in NUMBER_WORDS:
            if quantity_words:
                quantity = NUMBERS.get(first) or NUMBER_WORDS[first]
            tokens = tokens[1:]
    tokens = [t for t in tokens if t not in FILLERS]
    size = None
    while tokens and isinstance(tokens[0], str) and (tokens[0] in SKIP or tokens[0] in SIZES):
        size = tokens[0] if tokens[0] in SIZES else size
        tokens = tokens[1:]
    if not tokens:
        return None
    if isinstance(tokens[0], _Known):
        name, rest = tokens[0].name, tokens[1:]
    else:
        cut = next((i for i, t in enumerate(tokens) if t in MODIFIER_STARTS), len(tokens))
        name = " ".join(str(t) for t in tokens[:cut]).title()
        rest = tokens[cut:]
        if not name:
            return None
    words = [t.name.lower() if isinstance(t, _Known) else t for t in rest]
    return ItemRequest(name=name, quantity=quantity, size=size, modifiers=_modifier_phrases(words))


def _has(tokens: list[_Token], phrases: list[tuple[str, ...]]) -> bool:
    return any(tuple(tokens[i : i + len(p)]) == p for p in phrases for i in range(len(tokens)))


def parse_utterance(text: str, menu_names: list[str], quantity_words: bool = True) -> ParsedUtterance:
    raw = norm_tokens(text)
    tokens = _strip_leading(_recognise(raw, menu_names), GREETINGS, {"so", "oh", "ok", "okay"})
    greeted = len(tokens) < len(raw)
    words = {t for t in tokens if isinstance(t, str)}
    short = [t for t in tokens if t != SEPARATOR and t not in {"please", "thanks", "thank", "you"}]
    for intent, phrases in ((Intent.AFFIRMATIVE, AFFIRMATIVE), (Intent.NEGATIVE, NEGATIVE)):
        if 0 < len(short) <= 3 and any(_starts(short, p) for p in phrases):
            return ParsedUtterance(intent)
    if not tokens or all(t in FILLERS or t == SEPARATOR for t in tokens):
        return ParsedUtterance(Intent.GREETING if greeted else Intent.UNCLEAR)
    if _has(tokens, READBACK):
        return ParsedUtterance(Intent.READBACK)
    if _has(tokens, DONE) and not any(isinstance(t, _Known) for t in tokens):
        return ParsedUtterance(Intent.DONE)
    if words & PRICE_WORDS and ("how" in words or "price" in words or "total" in words):
        return ParsedUtterance(Intent.PRICE)
    if words & CHANGE_WORDS:
        return ParsedUtterance(Intent.CHANGE)
    for phrase in AVAILABILITY:
        if _starts(tokens, phrase):
            items = [i for s in _segments(tokens[len(phrase) :]) if (i := _item(s, quantity_words))]
            return ParsedUtterance(Intent.AVAILABILITY if items else Intent.QUESTION, items)
    if tokens[0] in QUESTION_STARTS:
        return ParsedUtterance(Intent.QUESTION)
    items = [i for s in _segments(tokens) if (i := _item(s, quantity_words))]
    return ParsedUtterance(Intent.ORDER, items) if items else ParsedUtterance(Intent.UNCLEAR)
