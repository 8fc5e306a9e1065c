from __future__ import annotations

import os
from typing import Any

import pytest
from pydantic import SecretStr

from services.search_proxy.answering import MistralAnswerer
from services.search_proxy.answering.mistral import LlmAnswer, mistral_answerer
from tests.services.search_proxy.answering.corpus_passages import passages
from tests.services.search_proxy.generation.fake_models import FakeChatModel

pytestmark = pytest.mark.unit


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
    draft = await MistralAnswerer(model, "mistral-small-latest").answer("How big is the pool?", docs, 3)
    assert [s.source_ids for s in draft.sentences] == [
        ["pr:redis-pool-limits"],
        ["pr:redis-outage-postmortem"],
    ]
    assert "[2] (pr:redis-pool-limits)" in model.prompts[0] and "How big is the pool?" in model.prompts[0]


async def test_abstains_when_the_model_does_or_nothing_was_retrieved() -> None:
    model = FakeChatModel({LlmAnswer: lambda prompt: LlmAnswer(sentences=[], abstained=True)})
    answerer = MistralAnswerer(model, "m")
    assert (await answerer.answer("q?", passages("pr:redis-pool-limits"), 3)).abstained
    assert (await answerer.answer("q?", [], 3)).abstained
    assert len(model.prompts) == 1  # no passages: no call
    assert answerer.name == "mistral:m"


def test_the_production_model_is_chat_mistral_with_explicit_timeout_and_retries() -> None:
    answerer = mistral_answerer(SecretStr("test-key-not-used"), "mistral-small-latest", 30, 2)
    assert answerer.name == "mistral:mistral-small-latest"


@pytest.mark.skipif(not os.environ.get("MISTRAL_API_KEY"), reason="needs MISTRAL_API_KEY")
async def test_live_mistral_answer_cites_the_passage_that_states_it() -> None:
    key = SecretStr(os.environ["MISTRAL_API_KEY"])
    docs = passages("pr:redis-pool-limits", "pr:api-rate-limiting")
    draft = await mistral_answerer(key, "mistral-small-latest", 30, 2).answer(
        "How many connections does the Redis pool hold now?", docs, 2
    )
    assert not draft.abstained
    assert "pr:redis-pool-limits" in {i for s in draft.sentences for i in s.source_ids}
