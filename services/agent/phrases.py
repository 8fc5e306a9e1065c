"""Vocabulary of the offline model's utterance reader: greetings, order preambles, fillers,
numbers, sizes, and the phrases that mark done / read-back / yes / no."""

from __future__ import annotations

import re

from services.agent.matching import name_key

SEPARATOR = ","
_MARKS = re.compile(r"[.!?;:]")
_OTHER = re.compile(r"[^a-z0-9,\s]")


def norm_tokens(text: str) -> list[str]:
    """Normalised words (singular, aliases expanded) with "," marking sentence/list breaks."""
    lowered = text.lower().replace("&", " and ").replace("'", "").replace("\u2019", "").replace("-", " ")
    lowered = _OTHER.sub(" ", _MARKS.sub(" , ", lowered).replace(",", " , "))
    out: list[str] = []
    for word in lowered.split():
        out.extend(name_key(word) if word != SEPARATOR else (word,))
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
