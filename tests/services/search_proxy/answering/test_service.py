from __future__ import annotations

import pytest

from services.search_proxy.answering import AnswerService, ExtractiveAnswerer, LlmAnswerer
from services.search_proxy.answering.llm_answerer import LlmAnswer
from services.search_proxy.result_cache import ResultCache
from services.search_proxy.search_filters import SearchFilters
from services.search_proxy.search_service import SearchBackend, SearchService
from tests.services.search_proxy.answering.corpus_passages import lookup
from tests.services.search_proxy.generation.fake_models import FakeChatModel
from yardstick.api.answer_messages import AnswerRequest
from yardstick.api.search_messages import SearchHit, SearchMode

pytestmark = pytest.mark.unit


class RedisBackend:
    name = "corpus"
    cache_scope = "corpus:test"

    async def search(
        self, query: str, mode: SearchMode, limit: int, offset: int, filters: SearchFilters
    ) -> list[SearchHit]:
        ids = ["pr:redis-outage-postmortem", "pr:redis-pool-limits"][:limit]
        return [SearchHit(id=i, score=1.0 / n, rank=n) for n, i in enumerate(ids, start=1)]


def answers(mistral: LlmAnswerer | None = None) -> AnswerService:
    backends: dict[str, SearchBackend] = {"corpus": RedisBackend()}
    search = SearchService(backends, default_backend="corpus", cache=ResultCache(ttl_s=0, max_entries=0))
    return AnswerService(search, lookup(), ExtractiveAnswerer(), mistral)


async def test_extractive_answer_with_contexts_and_results() -> None:
    reply = await answers().answer(AnswerRequest(query="What caused the Redis outage?"))
    assert reply.ok and not reply.abstained and reply.answerer == "extractive"
    assert [h.id for h in reply.results] == ["pr:redis-outage-postmortem", "pr:redis-pool-limits"]
    assert len(reply.contexts) == 2 and reply.citations and "[1]" in reply.answer
    assert reply.latency_ms >= reply.retrieval_latency_ms >= 0


async def test_degraded_retrieval_abstains() -> None:
    reply = await answers().answer(AnswerRequest(query="What caused the Redis outage?", degrade=1.0))
    assert reply.ok and reply.abstained and reply.citations == [] and reply.results == []


async def test_mistral_is_the_default_when_configured_and_refused_when_not() -> None:
    model = FakeChatModel(
        {
            LlmAnswer: lambda p: {
                "sentences": [{"text": "Pool exhaustion.", "sources": [1]}],
                "abstained": False,
            }
        }
    )
    service = answers(LlmAnswerer(model, "mistral:m"))
    reply = await service.answer(AnswerRequest(query="Why did Redis fail?"))
    assert reply.answerer == "mistral:m" and reply.answer == "Pool exhaustion. [1]"
    offline = await service.answer(AnswerRequest(query="Why did Redis fail?", answerer="extractive"))
    assert offline.answerer == "extractive"
    refused = await answers().answer(AnswerRequest(query="Why did Redis fail?", answerer="mistral"))
    assert not refused.ok and refused.error is not None and "MISTRAL_API_KEY" in refused.error


async def test_a_failing_model_is_an_error_reply() -> None:
    def boom(prompt: str) -> object:
        raise RuntimeError("rate limited")

    reply = await answers(LlmAnswerer(FakeChatModel({LlmAnswer: boom}), "mistral:m")).answer(
        AnswerRequest(query="Why did Redis fail?")
    )
    assert not reply.ok and reply.error == "answerer failed: RuntimeError: rate limited"
