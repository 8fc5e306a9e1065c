"""Build the search service from settings: database, corpus load, backends, cache."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from sqlalchemy.ext.asyncio import AsyncEngine

from services.search_proxy.answering import (
    AnswerService,
    ExtractiveAnswerer,
    LlmAnswerer,
    PassageLookup,
    llm_answerer,
)
from services.search_proxy.corpus import load_corpus
from services.search_proxy.corpus_backend import CorpusSearchBackend
from services.search_proxy.corpus_store import ensure_corpus_loaded
from services.search_proxy.result_cache import ResultCache
from services.search_proxy.search_service import SearchBackend, SearchService
from services.search_proxy.settings import SearchProxySettings
from services.search_proxy.upstream_backend import HttpSearchBackend, UpstreamConfig
from shared.db.session import make_engine, make_session_factory
from shared.llm import LlmNotConfigured, LlmSettings, llm_config

log = logging.getLogger(__name__)


@dataclass
class SearchRuntime:
    service: SearchService
    answers: AnswerService
    engine: AsyncEngine
    corpus_version: str
    upstream: HttpSearchBackend | None = field(default=None)

    async def close(self) -> None:
        if self.upstream is not None:
            await self.upstream.aclose()
        await self.engine.dispose()


def answering_model(settings: SearchProxySettings, llm: LlmSettings | None = None) -> LlmAnswerer | None:
    """The LLM answerer ``ANSWER_PROVIDER``/``ANSWER_MODEL`` name (None: extractive answers only;
    a provider named but not configured is logged and left out)."""
    env = (llm or LlmSettings()).model_copy(update={"mistral_api_key": settings.mistral_api_key})
    try:
        config = llm_config(settings.answer_provider, settings.answer_model, settings=env)
    except LlmNotConfigured as exc:
        log.warning("LLM answerer not configured: %s; answers are extractive", exc)
        return None
    if config.provider == "offline":
        return None
    limits = {"timeout_s": settings.answer_timeout_s, "max_retries": settings.answer_max_retries}
    return llm_answerer(config.model_copy(update=limits))


async def start_runtime(settings: SearchProxySettings) -> SearchRuntime:
    corpus = load_corpus(settings.search_corpus_path)
    engine = make_engine(settings.database_url)
    session_factory = make_session_factory(engine)
    await ensure_corpus_loaded(session_factory, corpus)
    backends: dict[str, SearchBackend] = {"corpus": CorpusSearchBackend(session_factory, corpus)}
    upstream = None
    if settings.search_upstream_url and settings.search_upstream_key:
        upstream = HttpSearchBackend(
            UpstreamConfig(
                base_url=settings.search_upstream_url,
                api_key=settings.search_upstream_key,
                workspace_id=settings.search_upstream_workspace,
                timeout_s=settings.search_upstream_timeout_s,
                max_retries=settings.search_upstream_retries,
            ),
            policy=settings.outbound_policy,
        )
        backends["http"] = upstream
    service = SearchService(
        backends,
        default_backend=settings.search_backend,
        cache=ResultCache(ttl_s=settings.search_cache_ttl_s, max_entries=settings.search_cache_max_entries),
        default_degrade=settings.search_degrade,
        request_timeout_s=settings.search_request_timeout_s,
    )
    answers = AnswerService(
        service, PassageLookup(corpus.documents()), ExtractiveAnswerer(), answering_model(settings)
    )
    log.info(
        "search-proxy ready",
        extra={
            "backends": sorted(backends),
            "default": settings.search_backend,
            "corpus": corpus.corpus_version,
            "answerer": answers.default_answerer,
        },
    )
    return SearchRuntime(
        service=service,
        answers=answers,
        engine=engine,
        corpus_version=corpus.corpus_version,
        upstream=upstream,
    )
