"""Whether an answer's sentences are supported by the retrieved passages (lexical, deterministic).

A *claim* is one sentence of the answer with its ``[n]`` citation markers removed. Its *content
words* are its lower-cased alphanumeric tokens minus stopwords, compared on their first
``STEM_CHARS`` characters (payment / payments). A claim is supported by a passage when

* at least ``min_support`` of its content words occur in the passage, and
* every number in it (a token with a digit: 200, 15, 1st, 2.1) occurs in that same passage.

A claim with no content words (``"Yes."``) claims nothing and is not counted."""

from __future__ import annotations

import re
from dataclasses import dataclass

STEM_CHARS = 5
_MARKER = re.compile(r"\s*\[\d+\]")
_SPLIT = re.compile(r"(?<=[.!?\]])\s+(?=[A-Z0-9#\"'(])|\n+")
"""After end punctuation, or after the citation markers that follow it, before a new sentence."""
_TOKEN = re.compile(r"[a-z0-9]+(?:\.[0-9]+)*")
_STOPWORD_TEXT = """
    a an and are as at be been but by can could did do does for from had has have he her his how i if
    in into is it its of on or our she so than that the their them then there these they this those to
    up was we were what when where which who whom why will with would you your not no yes also about
    after before over under all any each both only own same very just"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())


def strip_markers(text: str) -> str:
    return _MARKER.sub("", text)


def claims(answer: str) -> list[str]:
    """The answer's sentences without citation markers (empty ones dropped)."""
    return [s.strip() for s in _SPLIT.split(answer) if s and strip_markers(s).strip()]


def _tokens(text: str) -> list[str]:
    return [t for t in _TOKEN.findall(strip_markers(text).lower()) if t not in STOPWORDS]


def content_words(text: str) -> set[str]:
    return {t[:STEM_CHARS] for t in _tokens(text)}


def numbers(text: str) -> set[str]:
    return {t for t in _tokens(text) if any(ch.isdigit() for ch in t)}


@dataclass(frozen=True)
class Support:
    claim: str
    coverage: float
    """Best share of the claim's content words found in one passage (0 with no passages)."""
    supported: bool
    missing_numbers: tuple[str, ...] = ()


def support(claim: str, passages: list[str], min_support: float) -> Support | None:
    """How well the best passage supports ``claim``; None when the claim has no content words."""
    words = content_words(claim)
    if not words:
        return None
    nums = numbers(claim)
    best = Support(claim, 0.0, False, tuple(sorted(nums)))
    for passage in passages:
        passage_tokens = set(_tokens(passage))
        passage_words = {t[:STEM_CHARS] for t in passage_tokens}
        coverage = len(words & passage_words) / len(words)
        missing = tuple(sorted(nums - passage_tokens))
        candidate = Support(claim, coverage, coverage >= min_support and not missing, missing)
        if (candidate.supported, candidate.coverage) > (best.supported, best.coverage):
            best = candidate
    return best
