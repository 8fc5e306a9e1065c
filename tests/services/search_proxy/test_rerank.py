from __future__ import annotations

from datetime import UTC, datetime

import pytest

from services.search_proxy.query_hints import QueryHints
from services.search_proxy.rerank import Candidate, fuzzy_score, phrase_score, rerank
from services.search_proxy.trigrams import similarity

pytestmark = pytest.mark.unit


def cand(id_: str, title: str, **kw: object) -> Candidate:
    fields: dict[str, object] = {
        "id": id_,
        "title": title,
        "body": "",
        "source_type": "github_pr",
        "actor": "",
        "occurred_at": datetime(2025, 12, 1, tzinfo=UTC),
    }
    fields.update(kw)
    return Candidate.model_validate(fields)


def test_trigram_similarity_tolerates_typos() -> None:
    assert similarity("redis", "redis") == 1.0
    assert similarity("reddis", "redis") > 0.5
    assert similarity("redis", "kafka") == 0.0


def test_phrase_and_fuzzy_scores() -> None:
    assert phrase_score(["connection", "pool"], "Redis connection pool exhausted") == 1.0
    assert phrase_score(["pool", "connection"], "Redis connection pool exhausted") == 0.0
    assert fuzzy_score(["reddis"], "Redis outage") > 0.5


def test_phrase_match_outranks_scattered_words_at_equal_text_score() -> None:
    a = cand("a", "pool of connection handlers", fts_score=0.2, matched_all=True)
    b = cand("b", "connection pool exhausted", fts_score=0.2, matched_all=True)
    ranked = rerank([a, b], QueryHints(text="connection pool"))
    assert [c.id for c, _ in ranked] == ["b", "a"]


def test_and_match_outranks_a_stronger_or_match() -> None:
    or_only = cand("or", "open the pull request", fts_score=0.15)
    both = cand("and", "open pull request", fts_score=0.07, matched_all=True)
    assert rerank([or_only, both], QueryHints(text="open pull request"))[0][0].id == "and"


def test_actor_and_date_hints_boost() -> None:
    sarah = cand("s", "fix leak", actor="Sarah Chen <sarah@acme.com>", fts_score=0.1)
    other = cand("o", "fix leak", actor="Alex Rivera <alex@acme.com>", fts_score=0.3)
    hints = QueryHints(text="fix", actors=["sarah@acme.com"])
    assert rerank([other, sarah], hints)[0][0].id == "s"
    early = cand("early", "x", occurred_at=datetime(2025, 11, 1, tzinfo=UTC), fts_score=0.3)
    inside = cand("inside", "x", occurred_at=datetime(2025, 12, 2, tzinfo=UTC), fts_score=0.1)
    period = QueryHints(
        text="x", start=datetime(2025, 12, 1, tzinfo=UTC), end=datetime(2025, 12, 8, tzinfo=UTC)
    )
    assert rerank([early, inside], period)[0][0].id == "inside"


def test_fuzzy_only_candidates_below_the_floor_are_dropped() -> None:
    near = cand("near", "redis outage")
    far = cand("far", "dark mode toggle")
    ranked = rerank([near, far], QueryHints(text="reddis outage"))
    assert [c.id for c, _ in ranked] == ["near"]
