"""Sentences and terms of passages and questions, for the extractive answerer."""

from __future__ import annotations

import re

_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9#\"'(\[])|\n+")
_WORD = re.compile(r"[a-z0-9]+")
STEM_CHARS = 5
"""Words are compared on their first five letters (payment / payments, migrate / migration)."""

_STOPWORD_TEXT = """
    a an and are as at be been by can could did do does for from had has have how i in into is it
    its of on or our so that the their there these this to up was we were what when where which who
    whom why will with would you your about after any before did does done get got happen happened
    me my tell show give know since than then them they just also still should"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SPLIT.split(text) if s and s.strip()]


def terms(text: str) -> set[str]:
    """Content words of ``text``: lower-cased, stopwords dropped, cut to ``STEM_CHARS`` letters."""
    return {w[:STEM_CHARS] for w in _WORD.findall(text.lower()) if w not in STOPWORDS}


def asks_who_or_when(question: str) -> bool:
    words = set(_WORD.findall(question.lower()))
    return bool(words & {"who", "whom", "whose", "when", "author", "authored", "assigned", "owns"})
