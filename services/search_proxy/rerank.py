"""The ``thorough`` mode's re-ranking, in Python over the full-text candidate set.

final score = full-text score (ts_rank_cd, normalised to 0..1)
            + ALL_TERMS_WEIGHT if the document matched the AND query (every word), not only the OR one
            + PHRASE_WEIGHT * fraction of the query's adjacent word pairs found verbatim in the document
            + FUZZY_WEIGHT  * mean trigram similarity of each query term to its closest title/body word
              (catches typos and word forms the stemmer misses: "reddis", "hydrate")
            + ACTOR_WEIGHT  if the document's actor matches an actor hint ("by sarah")
            + DATE_WEIGHT   if the document falls in the hinted period ("last week", "Dec 1st")
"""

from __future__ import annotations

import itertools
from datetime import datetime

from pydantic import BaseModel

from services.search_proxy.query_hints import QueryHints
from services.search_proxy.trigrams import best_word_similarity, words

ALL_TERMS_WEIGHT = 0.3
PHRASE_WEIGHT = 0.3
FUZZY_WEIGHT = 0.3
ACTOR_WEIGHT = 0.4
DATE_WEIGHT = 0.3
FUZZY_FLOOR = 0.45
"""A fuzzy-only candidate (no full-text match) must reach this mean similarity to be kept."""

_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "of",
        "in",
        "on",
        "at",
        "to",
        "for",
        "by",
        "from",
        "with",
        "what",
        "which",
        "who",
        "whose",
        "when",
        "where",
        "why",
        "how",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "did",
        "do",
        "does",
        "done",
        "has",
        "have",
        "had",
        "any",
        "all",
        "our",
        "we",
        "us",
        "i",
        "me",
        "my",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "about",
        "after",
        "before",
        "during",
        "there",
        "any",
        "show",
        "find",
        "list",
        "get",
    ]
)


class Candidate(BaseModel):
    id: str
    title: str
    body: str
    source_type: str
    actor: str
    occurred_at: datetime | None
    fts_score: float = 0.0
    matched_all: bool = False


def query_terms(text: str) -> list[str]:
    return [w for w in words(text) if w not in _STOPWORDS and len(w) > 1]


def phrase_score(terms: list[str], doc_text: str) -> float:
    pairs = [f"{a} {b}" for a, b in itertools.pairwise(terms)]
    if not pairs:
        return 0.0
    normalised = " ".join(words(doc_text))
    return sum(pair in normalised for pair in pairs) / len(pairs)


def fuzzy_score(terms: list[str], doc_text: str) -> float:
    if not terms:
        return 0.0
    vocabulary = set(words(doc_text))
    return sum(best_word_similarity(t, vocabulary) for t in terms) / len(terms)


def _in_period(when: datetime | None, hints: QueryHints) -> bool:
    if when is None or hints.start is None or hints.end is None:
        return False
    return hints.start <= when < hints.end


def rerank(candidates: list[Candidate], hints: QueryHints) -> list[tuple[Candidate, float]]:
    """Score every candidate, drop fuzzy-only candidates below the floor, best first."""
    terms = query_terms(hints.text)
    scored: list[tuple[Candidate, float]] = []
    for cand in candidates:
        text = f"{cand.title} {cand.body}"
        fuzzy = fuzzy_score(terms, text)
        actor_hit = any(a in cand.actor.lower() for a in hints.actors)
        date_hit = _in_period(cand.occurred_at, hints)
        if cand.fts_score == 0.0 and not actor_hit and not date_hit and fuzzy < FUZZY_FLOOR:
            continue
        score = (
            cand.fts_score
            + ALL_TERMS_WEIGHT * cand.matched_all
            + PHRASE_WEIGHT * phrase_score(terms, text)
            + FUZZY_WEIGHT * fuzzy
            + ACTOR_WEIGHT * actor_hit
            + DATE_WEIGHT * date_hit
        )
        scored.append((cand, score))
    scored.sort(key=lambda pair: (-pair[1], pair[0].id))
    return scored
