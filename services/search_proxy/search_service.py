"""One search entry point for NATS and HTTP: choose the backend, consult the cache, apply fault
injection, time the call, and turn every failure into ``SearchResponse(ok=False, error=…)``."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Protocol

from services.search_proxy.degrade import is_degraded
from services.search_proxy.result_cache import CacheKey, ResultCache
from services.search_proxy.search_filters import InvalidFilters, SearchFilters, parse_filters
from services.search_proxy.upstream_backend import UpstreamError
from yardstick.api.search_messages import SearchHit, SearchMode, SearchRequest, SearchResponse

log = logging.getLogger(__name__)


class SearchBackend(Protocol):
    name: str

    @property
    def cache_scope(self) -> str: ...

    async def search(
        self, query: str, mode: SearchMode, limit: int, offset: int, filters: SearchFilters
    ) -> list[SearchHit]: ...


class BackendNotConfigured(LookupError):
    """The request asked for a backend this service was not configured with."""


class SearchTimeout(TimeoutError):
    """The backend did not answer within the service's request timeout."""


class SearchService:
    def __init__(
        self,
        backends: dict[str, SearchBackend],
        *,
        default_backend: str,
        cache: ResultCache,
        default_degrade: float = 0.0,
        request_timeout_s: float = 30.0,
    ) -> None:
        if default_backend not in backends:
            raise BackendNotConfigured(
                f"default backend {default_backend!r} is not configured (have: {sorted(backends)})"
            )
        self._backends = backends
        self._default = default_backend
        self._cache = cache
        self._default_degrade = default_degrade
        self._timeout = request_timeout_s

    def backend(self, name: str | None) -> SearchBackend:
        chosen = name or self._default
        if chosen not in self._backends:
            hint = "set SEARCH_UPSTREAM_URL and SEARCH_UPSTREAM_KEY" if chosen == "http" else "check the name"
            raise BackendNotConfigured(f"search backend {chosen!r} is not configured: {hint}")
        return self._backends[chosen]

    async def search(self, request: SearchRequest) -> SearchResponse:
        started = time.perf_counter()
        backend_name = request.backend or self._default
        try:
            backend = self.backend(request.backend)
            hits, cached = await self._results(backend, request, parse_filters(request.filters))
        except (InvalidFilters, BackendNotConfigured, UpstreamError, SearchTimeout) as exc:
            log.warning("search failed", extra={"query": request.query, "error": str(exc)})
            return self._failure(str(exc), backend_name, started)
        except Exception as exc:
            log.exception("search crashed", extra={"query": request.query})
            error = f"internal error in search-proxy: {type(exc).__name__}: {exc}"
            return self._failure(error, backend_name, started)
        fraction = request.degrade if request.degrade > 0 else self._default_degrade
        if is_degraded(request.query, fraction):
            log.info("degraded query (fault injection)", extra={"query": request.query, "fraction": fraction})
            hits = []
        return SearchResponse(
            ok=True,
            results=hits,
            latency_ms=(time.perf_counter() - started) * 1000,
            backend=backend.name,
            cached=cached,
        )

    async def _results(
        self, backend: SearchBackend, request: SearchRequest, filters: SearchFilters
    ) -> tuple[list[SearchHit], bool]:
        key = CacheKey.build(
            backend=backend.name,
            scope=backend.cache_scope,
            query=request.query,
            mode=request.mode,
            limit=request.limit,
            offset=request.offset,
            filters=filters.model_dump(mode="json", exclude_none=True),
        )
        if not request.bypass_cache and (hits := self._cache.get(key)) is not None:
            return hits, True
        try:
            hits = await asyncio.wait_for(
                backend.search(request.query, request.mode, request.limit, request.offset, filters),
                timeout=self._timeout,
            )
        except TimeoutError as exc:
            raise SearchTimeout(
                f"backend {backend.name!r} did not answer within {self._timeout}s (SEARCH_REQUEST_TIMEOUT_S)"
            ) from exc
        if not request.bypass_cache:
            self._cache.put(key, hits)
        return hits, False

    @staticmethod
    def _failure(error: str, backend: str, started: float) -> SearchResponse:
        return SearchResponse(
            ok=False, error=error, backend=backend, latency_ms=(time.perf_counter() - started) * 1000
        )
