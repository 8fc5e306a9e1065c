from __future__ import annotations

import pytest

from services.search_proxy.result_cache import CacheKey, ResultCache
from yardstick.api.search_messages import SearchHit

pytestmark = pytest.mark.unit


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def key(**overrides: object) -> CacheKey:
    fields: dict[str, object] = {
        "backend": "corpus",
        "scope": "corpus:abc",
        "query": "redis outage",
        "mode": "balanced",
        "limit": 10,
        "offset": 0,
        "filters": {"source_type": ["github_pr"]},
    }
    fields.update(overrides)
    return CacheKey.build(**fields)  # type: ignore[arg-type]


HITS = [SearchHit(id="pr:x", score=0.5, rank=1)]


@pytest.mark.parametrize(
    "change",
    [
        {"backend": "http"},
        {"scope": "corpus:def"},
        {"query": "redis"},
        {"mode": "fast"},
        {"limit": 5},
        {"offset": 10},
        {"filters": {}},
    ],
)
def test_every_key_field_separates_entries(change: dict[str, object]) -> None:
    assert key() != key(**change)
    cache = ResultCache(ttl_s=60, max_entries=10)
    cache.put(key(), HITS)
    assert cache.get(key(**change)) is None
    assert cache.get(key()) == HITS


def test_filter_order_does_not_matter() -> None:
    assert key(filters={"a": 1, "b": 2}) == key(filters={"b": 2, "a": 1})


def test_entries_expire_after_the_ttl() -> None:
    clock = FakeClock()
    cache = ResultCache(ttl_s=30, max_entries=10, clock=clock)
    cache.put(key(), HITS)
    clock.now += 29.9
    assert cache.get(key()) == HITS
    clock.now += 0.2
    assert cache.get(key()) is None
    assert len(cache) == 0


def test_least_recently_used_entry_is_evicted() -> None:
    cache = ResultCache(ttl_s=60, max_entries=2)
    cache.put(key(query="a"), HITS)
    cache.put(key(query="b"), HITS)
    assert cache.get(key(query="a")) is not None  # a is now the most recent
    cache.put(key(query="c"), HITS)
    assert cache.get(key(query="b")) is None
    assert cache.get(key(query="a")) is not None
    assert cache.get(key(query="c")) is not None


def test_cached_hits_are_copies() -> None:
    cache = ResultCache(ttl_s=60, max_entries=2)
    cache.put(key(), HITS)
    got = cache.get(key())
    assert got is not None
    got[0].score = 99.0
    again = cache.get(key())
    assert again is not None and again[0].score == 0.5


def test_zero_ttl_disables_the_cache() -> None:
    cache = ResultCache(ttl_s=0, max_entries=10)
    cache.put(key(), HITS)
    assert cache.get(key()) is None
