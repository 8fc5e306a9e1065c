from __future__ import annotations

import pytest

from services.search_proxy.answering import ExtractiveAnswerer, render
from services.search_proxy.answering.sentences import sentences, terms
from tests.services.search_proxy.answering.corpus_passages import passages

pytestmark = pytest.mark.unit

REDIS = ("pr:redis-outage-postmortem", "pr:redis-pool-limits", "error:redis-connection-pool-exhausted")


def test_sentences_do_not_split_inside_paths_emails_or_versions() -> None:
    text = "Files changed: src/a.ts, src/b.ts. Pushed by Sarah Chen <sarah@acme.com> on 1 Dec 2025."
    assert sentences(text) == [
        "Files changed: src/a.ts, src/b.ts.",
        "Pushed by Sarah Chen <sarah@acme.com> on 1 Dec 2025.",
    ]
    assert terms("What caused the payments outage?") == {"cause", "payme", "outag"}


def test_answer_quotes_the_best_matching_sentences_and_cites_them() -> None:
    docs = passages(*REDIS)
    draft = ExtractiveAnswerer().draft("What caused the Redis outage on Dec 1st?", docs, 3)
    text, citations = render(draft, docs)
    assert not draft.abstained and 1 <= len(draft.sentences) <= 3
    assert "Root cause: connection pool exhaustion" in text
    assert citations[0].id == "pr:redis-outage-postmortem"
    assert "[1]" in text
    for sentence in draft.sentences:  # extractive: every sentence is verbatim from its source
        source = next(d for d in docs if d.id == sentence.source_ids[0])
        assert sentence.text in source.text


def test_who_questions_get_the_byline_of_the_best_document() -> None:
    docs = passages("pr:payment-processor-memory-leak", "push:checkout-service-fix")
    text, _ = render(
        ExtractiveAnswerer().draft("Who fixed the memory leak in the payment processor?", docs, 3), docs
    )
    assert "Sarah Chen" in text


def test_abstains_without_documents_or_without_a_matching_sentence() -> None:
    answerer = ExtractiveAnswerer()
    assert answerer.draft("What caused the Redis outage?", [], 3).abstained
    unrelated = passages("push:ci-cache-fix")
    assert answerer.draft("Who signed off the SOC 2 audit report?", unrelated, 3).abstained
    text, citations = render(answerer.draft("anything", [], 3), [])
    assert citations == [] and text.startswith("None of the retrieved documents")


def test_deterministic_and_bounded() -> None:
    docs = passages(*REDIS)
    answerer = ExtractiveAnswerer(per_document=1)
    first = answerer.draft("redis connection pool size", docs, 2)
    assert first == answerer.draft("redis connection pool size", docs, 2)
    assert len(first.sentences) <= 2
    assert len({s.source_ids[0] for s in first.sentences}) == len(first.sentences)
