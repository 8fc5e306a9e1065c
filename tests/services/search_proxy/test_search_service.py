from __future__ import annotations

import asyncio

import pytest

from services.search_proxy.degrade import is_degraded
from services.search_proxy.result_cache import ResultCache
from services.search_proxy.search_filters import SearchFilters
from services.search_proxy.search_service import SearchBackend, SearchService
from services.search_proxy.upstream_backend import UpstreamUnavailable
from yardstick.api.search_messages import SearchHit, SearchMode, SearchRequest

pytestmark = pytest.mark.unit


class FakeBackend:
    name = "corpus"
    cache_scope = "corpus:v1"

    def __init__(self, *, fail: Exception | None = None, delay: float = 0.0) -> None:
        self.calls = 0
        self.fail = fail
        self.delay = delay

    async def search(
        self, query: str, mode: SearchMode, limit: int, offset: int, filters: SearchFilters
    ) -> list[SearchHit]:
        self.calls += 1
        if self.delay:
            await asyncio.sleep(self.delay)
        if self.fail:
            raise self.fail
        return [SearchHit(id=f"doc:{query}", score=1.0, rank=offset + 1)]


def service(backend: FakeBackend, **kw: object) -> SearchService:
    backends: dict[str, SearchBackend] = {"corpus": backend}
    return SearchService(
        backends,
        default_backend="corpus",
        cache=ResultCache(ttl_s=60, max_entries=100),
        **kw,  # type: ignore[arg-type]
    )


async def test_second_identical_request_is_served_from_cache() -> None:
    backend = FakeBackend()
    svc = service(backend)
    first = await svc.search(SearchRequest(query="redis"))
    second = await svc.search(SearchRequest(query="redis"))
    assert first.ok and not first.cached
    assert second.cached and second.results == first.results
    assert backend.calls == 1
    other_mode = await svc.search(SearchRequest(query="redis", mode="fast"))
    assert not other_mode.cached and backend.calls == 2


async def test_bypass_cache_always_calls_the_backend() -> None:
    backend = FakeBackend()
    svc = service(backend)
    await svc.search(SearchRequest(query="redis"))
    bypass = await svc.search(SearchRequest(query="redis", bypass_cache=True))
    assert not bypass.cached and backend.calls == 2


async def test_degrade_drops_results_for_hashed_queries_only() -> None:
    dropped = next(f"q{i}" for i in range(100) if is_degraded(f"q{i}", 0.5))
    kept = next(f"q{i}" for i in range(100) if not is_degraded(f"q{i}", 0.5))
    svc = service(FakeBackend())
    degraded = await svc.search(SearchRequest(query=dropped, degrade=0.5))
    assert degraded.ok and degraded.results == []
    assert (await svc.search(SearchRequest(query=kept, degrade=0.5))).results
    assert (await svc.search(SearchRequest(query=dropped))).results, "degrade is off unless asked for"


async def test_settings_default_degrade_applies_when_request_sets_none() -> None:
    svc = service(FakeBackend(), default_degrade=1.0)
    assert (await svc.search(SearchRequest(query="anything"))).results == []


@pytest.mark.parametrize(
    ("request_", "error"),
    [
        (SearchRequest(query="x", filters={"colour": "red"}), "allowed keys"),
        (SearchRequest(query="x", backend="http"), "SEARCH_UPSTREAM_URL"),
    ],
)
async def test_bad_requests_answer_ok_false(request_: SearchRequest, error: str) -> None:
    response = await service(FakeBackend()).search(request_)
    assert not response.ok and response.error is not None and error in response.error


async def test_backend_failures_and_timeouts_answer_ok_false() -> None:
    failing = await service(FakeBackend(fail=UpstreamUnavailable("upstream down"))).search(
        SearchRequest(query="x")
    )
    assert not failing.ok and failing.error == "upstream down"
    crash = await service(FakeBackend(fail=KeyError("boom"))).search(SearchRequest(query="x"))
    assert not crash.ok and crash.error is not None and "KeyError" in crash.error
    slow = await service(FakeBackend(delay=1.0), request_timeout_s=0.05).search(SearchRequest(query="x"))
    assert not slow.ok and slow.error is not None and "did not answer" in slow.error
