from __future__ import annotations

import pytest

from services.search_proxy.answering import AnswerDraft, DraftSentence, render
from tests.services.search_proxy.answering.corpus_passages import lookup, passages
from yardstick.api.search_messages import SearchHit

pytestmark = pytest.mark.unit


def test_citations_are_numbered_by_first_use_and_unknown_ids_dropped() -> None:
    docs = passages("pr:redis-pool-limits", "pr:redis-outage-postmortem")
    draft = AnswerDraft(
        sentences=[
            DraftSentence(
                text="The outage came from pool exhaustion.", source_ids=["pr:redis-outage-postmortem"]
            ),
            DraftSentence(text="The pool now holds 200.", source_ids=["pr:redis-pool-limits", "nope"]),
            DraftSentence(
                text="Both agree.", source_ids=["pr:redis-outage-postmortem", "pr:redis-pool-limits"]
            ),
        ]
    )
    text, citations = render(draft, docs)
    assert [c.id for c in citations] == ["pr:redis-outage-postmortem", "pr:redis-pool-limits"]
    assert text == "The outage came from pool exhaustion. [1] The pool now holds 200. [2] Both agree. [1][2]"
    assert citations[0].text.startswith("Post-mortem: Redis outage on Dec 1st.")


def test_corpus_passages_carry_a_byline_and_unknown_hits_fall_back_to_the_snippet() -> None:
    (push,) = passages("push:checkout-service-fix")
    assert push.text.endswith("Pushed by Sarah Chen <sarah@acme.com> on 1 Dec 2025.")
    upstream = lookup().passage(SearchHit(id="x:1", score=1, rank=1, title="A title", snippet="Some text."))
    assert upstream.text == "A title. Some text."
