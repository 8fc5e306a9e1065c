"""How the offline model reads a customer utterance: intent, and for orders the requested items
(quantity, size, spoken name, modifier phrases). Menu names it knows (from the system prompt) are
recognised first, so "Sausage McMuffin with Egg" or "Hotcakes and Sausage" stay one item."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum

from services.agent.matching import name_key

_SEPARATOR = ","
_MARKS = re.compile(r"[.!?;:]")
_OTHER = re.compile(r"[^a-z0-9,\s]")


def norm_tokens(text: str) -> list[str]:
    """Normalised words (singular, aliases expanded) with "," marking sentence/list breaks."""
    lowered = text.lower().replace("&", " and ").replace("'", "").replace("\u2019", "").replace("-", " ")
    lowered = _OTHER.sub(" ", _MARKS.sub(" , ", lowered).replace(",", " , "))
    out: list[str] = []
    for word in lowered.split():
        out.extend(name_key(word) if word != _SEPARATOR else (word,))
    return out


def _phrases(*raw: str) -> list[tuple[str, ...]]:
    return sorted((tuple(norm_tokens(p)) for p in raw), key=len, reverse=True)


GREETINGS = _phrases("hi", "hello", "hey", "hey there", "hi there", "good morning", "morning", "howdy")
PREAMBLES = _phrases(
    "can i get",
    "can i have",
    "could i get",
    "could i have",
    "may i have",
    "can i please get",
    "can i also get",
    "could i also get",
    "ill have",
    "ill take",
    "ill get",
    "ill do",
    "id like",
    "id like to order",
    "i would like",
    "i want",
    "i need",
    "give me",
    "gimme",
    "lemme get",
    "lemme have",
    "let me get",
    "let me have",
    "let me do",
    "lemme do",
    "get me",
    "im gonna get",
    "i will have",
    "i will take",
    "and also",
    "also",
    "then",
)
FILLERS = {*norm_tokens("uh uhh um umm er erm like please yeah yes ok okay so just actually maybe oh")}
QUESTION_STARTS = {*norm_tokens("what which how when where why whats who is are does")}
AVAILABILITY = _phrases(
    "do you have",
    "do you guys have",
    "do you sell",
    "do you serve",
    "do you still have",
    "is there",
    "are there",
    "have you got",
    "you got",
    "got any",
    "you have any",
)
DONE = _phrases(
    "thats all",
    "thats it",
    "that is all",
    "that is it",
    "thats everything",
    "nothing else",
    "im done",
    "i am done",
    "all done",
    "no thats it",
    "no thats all",
    "thats all thanks",
    "done",
)
READBACK = _phrases(
    "what did i order",
    "what did i get",
    "whats my order",
    "what is my order",
    "read it back",
    "read that back",
    "read back my order",
    "read my order back",
    "what do i have",
    "whats in my order",
    "repeat my order",
    "can you repeat that",
)
AFFIRMATIVE = _phrases(
    "yes", "yeah", "yep", "yup", "correct", "thats right", "that is right", "sure", "right"
)
NEGATIVE = _phrases("no", "nope", "not quite", "thats wrong", "wrong")
PRICE_WORDS = {*norm_tokens("price prices cost costs much total")}
CHANGE_WORDS = {*norm_tokens("remove cancel change instead replace delete minus")}
NUMBERS = {"a": 1, "an": 1, "one": 1, "single": 1}
NUMBER_WORDS = {
    "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
    "eleven": 11, "twelve": 12, "couple": 2, "pair": 2, "dozen": 12,
}  # fmt: skip
SIZES = {"small", "medium", "large", "snack", "regular"}
SKIP = {*norm_tokens("of those these the them order orders size sized")}
MODIFIER_STARTS = {*norm_tokens("with no without extra hold light add more")}
LIST_BREAKS = {",", "and", "plus", "n", "also"}


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
        if tokens[0] in words or tokens[0] == _SEPARATOR:
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
                if tokens[j] == _SEPARATOR and k > 0:
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
    short = [t for t in tokens if t != _SEPARATOR and t not in {"please", "thanks", "thank", "you"}]
    for intent, phrases in ((Intent.AFFIRMATIVE, AFFIRMATIVE), (Intent.NEGATIVE, NEGATIVE)):
        if 0 < len(short) <= 3 and any(_starts(short, p) for p in phrases):
            return ParsedUtterance(intent)
    if not tokens or all(t in FILLERS or t == _SEPARATOR for t in tokens):
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
