"""In-process LRU cache of search results with a TTL."""

from __future__ import annotations

import json
import time
from collections import OrderedDict
from collections.abc import Callable

from pydantic import BaseModel

from yardstick.api.search_messages import SearchHit


class CacheKey(BaseModel, frozen=True):
    """Everything that changes a result page. ``scope`` is the corpus version or upstream URL."""

    backend: str
    scope: str
    query: str
    mode: str
    limit: int
    offset: int
    filters: str

    @classmethod
    def build(
        cls,
        *,
        backend: str,
        scope: str,
        query: str,
        mode: str,
        limit: int,
        offset: int,
        filters: dict[str, object],
    ) -> CacheKey:
        canonical = json.dumps(filters, sort_keys=True, default=str)
        return cls(
            backend=backend,
            scope=scope,
            query=query,
            mode=mode,
            limit=limit,
            offset=offset,
            filters=canonical,
        )


class ResultCache:
    def __init__(
        self, *, ttl_s: float, max_entries: int, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if ttl_s < 0 or max_entries < 0:
            raise ValueError("cache ttl_s and max_entries must be >= 0 (0 disables the cache)")
        self._ttl = ttl_s
        self._max = max_entries
        self._clock = clock
        self._entries: OrderedDict[CacheKey, tuple[float, list[SearchHit]]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: CacheKey) -> list[SearchHit] | None:
        entry = self._entries.get(key)
        if entry is None:
            return None
        stored_at, hits = entry
        if self._clock() - stored_at >= self._ttl:
            del self._entries[key]
            return None
        self._entries.move_to_end(key)
        return [hit.model_copy() for hit in hits]

    def put(self, key: CacheKey, hits: list[SearchHit]) -> None:
        if self._max == 0 or self._ttl == 0:
            return
        self._entries[key] = (self._clock(), [hit.model_copy() for hit in hits])
        self._entries.move_to_end(key)
        while len(self._entries) > self._max:
            self._entries.popitem(last=False)
