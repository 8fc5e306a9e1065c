from __future__ import annotations

import os
from typing import Any

import pytest
from pydantic import SecretStr

from services.search_proxy.answering import LlmAnswerer
from services.search_proxy.answering.llm_answerer import LlmAnswer
from services.search_proxy.runtime import answering_model
from services.search_proxy.settings import SearchProxySettings
from shared.llm import LlmSettings, StructuredLlm
from tests.services.search_proxy.answering.corpus_passages import passages
from tests.services.search_proxy.generation.fake_models import FakeChatModel

pytestmark = pytest.mark.unit


def settings(**values: Any) -> SearchProxySettings:
    return SearchProxySettings(
        **{"database_url": "postgresql://unused/unused", "mistral_api_key": None, **values}
    )


async def test_sentences_map_passage_numbers_to_ids_and_drop_bad_numbers() -> None:
    reply: dict[str, Any] = {
        "sentences": [
            {"text": "Pool size went from 50 to 200.", "sources": [2, 9]},
            {"text": "It followed the outage.", "sources": [1]},
        ],
        "abstained": False,
    }
    model = FakeChatModel({LlmAnswer: lambda prompt: reply})
    docs = passages("pr:redis-outage-postmortem", "pr:redis-pool-limits")
    draft = await LlmAnswerer(model, "mistral:mistral-small-latest").answer("How big is the pool?", docs, 3)
    assert [s.source_ids for s in draft.sentences] == [
        ["pr:redis-pool-limits"],
        ["pr:redis-outage-postmortem"],
    ]
    assert "[2] (pr:redis-pool-limits)" in model.prompts[0] and "How big is the pool?" in model.prompts[0]


async def test_abstains_when_the_model_does_or_nothing_was_retrieved() -> None:
    model = FakeChatModel({LlmAnswer: lambda prompt: LlmAnswer(sentences=[], abstained=True)})
    answerer = LlmAnswerer(model, "openai:m")
    assert (await answerer.answer("q?", passages("pr:redis-pool-limits"), 3)).abstained
    assert (await answerer.answer("q?", [], 3)).abstained
    assert len(model.prompts) == 1  # no passages: no call
    assert (answerer.name, answerer.provider) == ("openai:m", "openai")


def test_the_configured_answerer_gets_explicit_timeout_and_retries() -> None:
    none = LlmSettings(openai_base_url=None, openai_api_key=None)
    assert answering_model(settings(), none.model_copy(update={"openai_base_url": None})) is None
    mistral = answering_model(
        settings(mistral_api_key=SecretStr("k"), answer_timeout_s=7, answer_max_retries=1)
    )
    assert mistral is not None and mistral.name == "mistral:mistral-small-latest"
    llm = mistral._model.llm  # type: ignore[attr-defined]
    assert isinstance(llm, StructuredLlm) and (llm.config.timeout_s, llm.config.max_retries) == (7, 1)
    endpoint = LlmSettings(openai_base_url="http://127.0.0.1:8000/v1")
    assert answering_model(settings(answer_provider="openai"), endpoint) is None  # no model name: logged
    openai = answering_model(settings(answer_provider="openai", answer_model="qwen"), endpoint)
    assert openai is not None and openai.name == "openai:qwen"


@pytest.mark.skipif(not os.environ.get("MISTRAL_API_KEY"), reason="needs MISTRAL_API_KEY")
async def test_live_mistral_answer_cites_the_passage_that_states_it() -> None:
    answerer = answering_model(settings(mistral_api_key=SecretStr(os.environ["MISTRAL_API_KEY"])))
    assert answerer is not None
    docs = passages("pr:redis-pool-limits", "pr:api-rate-limiting")
    draft = await answerer.answer("How many connections does the Redis pool hold now?", docs, 2)
    assert not draft.abstained
    assert "pr:redis-pool-limits" in {i for s in draft.sentences for i in s.source_ids}
