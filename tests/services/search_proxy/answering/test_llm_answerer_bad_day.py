"""The LLM answerer through the ``openai`` provider against a provider on a bad day."""

from __future__ import annotations

import pytest

from services.search_proxy.answering.llm_answerer import LlmAnswer, LlmAnswerer
from services.search_proxy.runtime import answering_model
from services.search_proxy.settings import SearchProxySettings
from shared.llm import LlmReplyInvalid
from shared.llm.response_formats import strict_schema
from tests.llm_provider import BadDayProvider, Reply
from tests.services.search_proxy.answering.corpus_passages import passages

pytestmark = pytest.mark.integration

ANSWER = {"sentences": [{"text": "The pool holds 200 connections.", "sources": [1]}], "abstained": False}


def openai_answerer() -> LlmAnswerer:
    settings = SearchProxySettings(
        database_url="postgresql://unused/unused", answer_provider="openai", answer_model="bad-day-model"
    )
    chosen = answering_model(settings)
    assert chosen is not None
    return chosen


async def test_json_schema_refused_then_json_object_answers(provider: BadDayProvider) -> None:
    provider.refuse = {"json_schema"}
    provider.then(Reply.json(ANSWER))
    chosen = openai_answerer()
    assert chosen.name == "openai:bad-day-model"
    draft = await chosen.answer("How big is the pool?", passages("pr:redis-pool-limits"), 2)
    assert [s.source_ids for s in draft.sentences] == [["pr:redis-pool-limits"]]
    assert [s.response_format for s in provider.seen] == ["json_schema", "json_object"]
    sent = provider.seen[0].body["response_format"]["json_schema"]
    assert sent["name"] == "LlmAnswer" and sent["schema"] == strict_schema(LlmAnswer.model_json_schema())
    assert provider.seen[1].body["response_format"]["schema"] == sent["schema"]


async def test_a_reply_that_never_parses_fails_the_answer_with_the_reason(provider: BadDayProvider) -> None:
    provider.then(Reply(content="The pool is big."), Reply(content="Very big."))
    chosen = openai_answerer()
    with pytest.raises(LlmReplyInvalid, match="reply did not parse after 2 tries") as caught:
        await chosen.answer("How big is the pool?", passages("pr:redis-pool-limits"), 2)
    assert caught.value.raw == "Very big."
