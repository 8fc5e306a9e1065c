"""Trigram similarity in Python, in the manner of pg_trgm (which this PostgreSQL build lacks)."""

from __future__ import annotations

import re

_WORD = re.compile(r"[a-z0-9]+")


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def trigrams(word: str) -> frozenset[str]:
    """pg_trgm style: the word padded with two spaces in front and one behind."""
    padded = f"  {word} "
    return frozenset(padded[i : i + 3] for i in range(len(padded) - 2))


def similarity(a: str, b: str) -> float:
    """Jaccard similarity of the two words' trigram sets, 0..1."""
    ta, tb = trigrams(a), trigrams(b)
    if not ta or not tb:
        return 0.0
    return len(ta & tb) / len(ta | tb)


def best_word_similarity(term: str, text_words: set[str]) -> float:
    """How well ``term`` matches its closest word of the text (1.0 = present verbatim)."""
    if term in text_words:
        return 1.0
    return max((similarity(term, w) for w in text_words), default=0.0)
