"""One answer entry point for NATS and HTTP: retrieve through the search service (cache, fault
injection and backends included), read the hits' passages, let the chosen answerer write,
render the citations. Every failure becomes ``AnswerResponse(ok=False, error=…)``."""

from __future__ import annotations

import logging
import time
from typing import Protocol

from services.search_proxy.answering.draft import AnswerDraft, render
from services.search_proxy.answering.passages import Passage, PassageLookup
from services.search_proxy.search_service import SearchService
from yardstick.api.answer_messages import AnswerRequest, AnswerResponse
from yardstick.api.search_messages import SearchRequest

log = logging.getLogger(__name__)


class Answerer(Protocol):
    @property
    def name(self) -> str: ...

    async def answer(self, question: str, passages: list[Passage], max_sentences: int) -> AnswerDraft: ...


class AnswererNotConfigured(LookupError):
    """The request asked for an answerer this proxy does not have (mistral without a key, …)."""


NOT_CONFIGURED_HINT = (
    "set ANSWER_PROVIDER and, for mistral, MISTRAL_API_KEY; for openai (any OpenAI-compatible "
    "endpoint), OPENAI_BASE_URL or OPENAI_API_KEY and ANSWER_MODEL (or OPENAI_MODEL) on the search-proxy"
)


class AnswerService:
    def __init__(
        self,
        search: SearchService,
        passages: PassageLookup,
        extractive: Answerer,
        llm: Answerer | None = None,
    ) -> None:
        """``llm`` (named ``provider:model``) answers requests for its provider and is the default."""
        self._search = search
        self._passages = passages
        self._answerers: dict[str, Answerer] = {"extractive": extractive}
        self.default_answerer = "extractive"
        if llm is not None:
            self.default_answerer = llm.name.partition(":")[0]
            self._answerers[self.default_answerer] = llm

    def answerer(self, name: str | None) -> Answerer:
        chosen = name or self.default_answerer
        if chosen not in self._answerers:
            raise AnswererNotConfigured(f"answerer {chosen!r} is not configured: {NOT_CONFIGURED_HINT}")
        return self._answerers[chosen]

    async def answer(self, request: AnswerRequest) -> AnswerResponse:
        started = time.perf_counter()
        found = await self._search.search(
            SearchRequest(
                query=request.query,
                mode=request.mode,
                limit=request.limit,
                backend=request.backend,
                bypass_cache=request.bypass_cache,
                degrade=request.degrade,
            )
        )
        if not found.ok:
            return AnswerResponse(ok=False, error=f"retrieval failed: {found.error}", backend=found.backend)
        passages = [self._passages.passage(hit) for hit in found.results]
        try:
            answerer = self.answerer(request.answerer)
            draft = await answerer.answer(request.query, passages, request.max_sentences)
        except AnswererNotConfigured as exc:
            return AnswerResponse(ok=False, error=str(exc), backend=found.backend)
        except Exception as exc:
            log.exception("answer failed", extra={"query": request.query})
            return AnswerResponse(
                ok=False, error=f"answerer failed: {type(exc).__name__}: {exc}", backend=found.backend
            )
        text, citations = render(draft, passages)
        return AnswerResponse(
            answer=text,
            citations=citations,
            abstained=draft.abstained or not draft.sentences,
            contexts=[p.text for p in passages],
            results=found.results,
            answerer=answerer.name,
            latency_ms=(time.perf_counter() - started) * 1000,
            retrieval_latency_ms=found.latency_ms,
            backend=found.backend,
        )
