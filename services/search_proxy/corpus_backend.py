"""The ``corpus`` backend: Postgres full-text search over ``search_documents``.

Modes (all rank with ``ts_rank_cd`` over the weighted tsvector, normalised with flag 32 to 0..1):

* ``fast`` - ``plainto_tsquery`` (every word must match) over the title (A) and body (B) weights
  only (``ts_filter``), no fallback, no re-ranking: one SQL query.
* ``balanced`` - ``websearch_to_tsquery`` ("quoted phrases", ``or``, ``-exclusion``) over title,
  body and actor; when the AND query finds fewer than ``offset + limit`` documents, an OR query
  of the same words fills the page below the AND matches (their score times ``OR_DISCOUNT``).
* ``thorough`` - strips actor/date hints from the query (:mod:`query_hints`), runs the balanced
  AND + OR search on the rest with a larger candidate pool, adds documents of the hinted actor or
  period, adds a fuzzy (trigram) scan of the corpus when that is still short of the page, then
  re-ranks in Python (:mod:`rerank`: phrase, fuzzy, actor and date boosts).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.search_proxy.corpus import Corpus
from services.search_proxy.query_hints import parse_hints
from services.search_proxy.rerank import Candidate, rerank
from services.search_proxy.search_filters import SearchFilters
from yardstick.api.search_messages import SearchHit, SearchMode

_TSQUERY = {
    "plain": "plainto_tsquery('english', :query)",
    "web": "websearch_to_tsquery('english', :query)",
    "or": "replace(plainto_tsquery('english', :query)::text, ' & ', ' | ')::tsquery",
}
_VECTOR = {"title_body": "ts_filter(d.tsv, '{a,b}')", "all": "d.tsv"}
_COLUMNS = "d.id, d.title, d.body, d.source_type, d.actor, d.occurred_at"
SNIPPET_CHARS = 240
OR_DISCOUNT = 0.25
"""OR-fallback matches count a quarter: cover density inflates the rank of single-word matches."""


def _filter_sql(filters: SearchFilters, params: dict[str, Any]) -> str:
    clauses: list[str] = []
    if filters.source_type:
        clauses.append("d.source_type = ANY(:f_source_type)")
        params["f_source_type"] = filters.source_type
    if filters.actor:
        clauses.append("d.actor ILIKE :f_actor")
        params["f_actor"] = f"%{filters.actor}%"
    if filters.since:
        clauses.append("d.occurred_at >= :f_since")
        params["f_since"] = filters.since
    if filters.until:
        clauses.append("d.occurred_at <= :f_until")
        params["f_until"] = filters.until
    return "".join(f" AND {c}" for c in clauses)


class CorpusSearchBackend:
    name = "corpus"

    def __init__(
        self,
        session_factory: async_sessionmaker[AsyncSession],
        corpus: Corpus,
        *,
        candidate_pool: int = 200,
        fuzzy_scan_limit: int = 1000,
    ) -> None:
        self._sessions = session_factory
        self._corpus = corpus
        self._version = corpus.corpus_version
        self._pool = candidate_pool
        self._fuzzy_scan_limit = fuzzy_scan_limit

    @property
    def cache_scope(self) -> str:
        return f"corpus:{self._version}"

    async def search(
        self, query: str, mode: SearchMode, limit: int, offset: int, filters: SearchFilters
    ) -> list[SearchHit]:
        if mode == "fast":
            rows = await self._fts(query, "plain", "title_body", filters, limit, offset)
            return self._hits([(c, c.fts_score) for c in rows], offset)
        if mode == "balanced":
            ranked = await self._and_then_or(query, filters, offset + limit)
            return self._hits(ranked[offset : offset + limit], offset)
        return await self._thorough(query, filters, limit, offset)

    async def _thorough(self, query: str, filters: SearchFilters, limit: int, offset: int) -> list[SearchHit]:
        hints = parse_hints(query, self._corpus.people, self._corpus.reference_time)
        found: dict[str, Candidate] = {}
        if hints.text:
            for cand, _ in await self._and_then_or(hints.text, filters, self._pool):
                found[cand.id] = cand
        if hints.actors or hints.start:
            for cand in await self._hinted(hints.actors, hints.start, hints.end, filters):
                found.setdefault(cand.id, cand)
        if len(found) < offset + limit and hints.text:
            for cand in await self._scan(filters):
                found.setdefault(cand.id, cand)
        ranked = rerank(list(found.values()), hints)
        return self._hits(ranked[offset : offset + limit], offset)

    async def _and_then_or(
        self, query: str, filters: SearchFilters, want: int
    ) -> list[tuple[Candidate, float]]:
        """AND matches first; when they are fewer than ``want``, OR matches below them."""
        strict = await self._fts(query, "web", "all", filters, want, 0)
        for cand in strict:
            cand.matched_all = True
        ranked = [(c, c.fts_score) for c in strict]
        if len(strict) < want:
            seen = {c.id for c in strict}
            loose = await self._fts(query, "or", "all", filters, want + len(strict), 0)
            for cand in loose:
                cand.fts_score *= OR_DISCOUNT
            ranked += [(c, c.fts_score) for c in loose if c.id not in seen][: want - len(strict)]
        return ranked

    async def _fts(
        self, query: str, tsquery: str, vector: str, filters: SearchFilters, limit: int, offset: int
    ) -> list[Candidate]:
        params: dict[str, Any] = {"query": query, "version": self._version, "limit": limit, "offset": offset}
        vec = _VECTOR[vector]
        sql = (
            f"SELECT {_COLUMNS}, ts_rank_cd({vec}, q.query, 32) AS fts_score "
            f"FROM search_documents d, (SELECT {_TSQUERY[tsquery]} AS query) q "
            f"WHERE d.corpus_version = :version AND {vec} @@ q.query{_filter_sql(filters, params)} "
            "ORDER BY fts_score DESC, d.occurred_at DESC NULLS LAST, d.id LIMIT :limit OFFSET :offset"
        )
        return await self._fetch(sql, params)

    async def _hinted(
        self, actors: list[str], start: Any, end: Any, filters: SearchFilters
    ) -> list[Candidate]:
        params: dict[str, Any] = {"version": self._version, "limit": self._pool}
        hint_clauses: list[str] = []
        if actors:
            hint_clauses.append("d.actor ILIKE ANY(:actors)")
            params["actors"] = [f"%{a}%" for a in actors]
        if start is not None and end is not None:
            hint_clauses.append("(d.occurred_at >= :h_start AND d.occurred_at < :h_end)")
            params.update(h_start=start, h_end=end)
        sql = (
            f"SELECT {_COLUMNS}, 0.0 AS fts_score FROM search_documents d "
            f"WHERE d.corpus_version = :version AND ({' OR '.join(hint_clauses)})"
            f"{_filter_sql(filters, params)} ORDER BY d.occurred_at DESC NULLS LAST, d.id LIMIT :limit"
        )
        return await self._fetch(sql, params)

    async def _scan(self, filters: SearchFilters) -> list[Candidate]:
        params: dict[str, Any] = {"version": self._version, "limit": self._fuzzy_scan_limit}
        sql = (
            f"SELECT {_COLUMNS}, 0.0 AS fts_score FROM search_documents d WHERE d.corpus_version = :version"
            f"{_filter_sql(filters, params)} ORDER BY d.occurred_at DESC NULLS LAST, d.id LIMIT :limit"
        )
        return await self._fetch(sql, params)

    async def _fetch(self, sql: str, params: dict[str, Any]) -> list[Candidate]:
        async with self._sessions() as session:
            result = await session.execute(text(sql), params)
            return [Candidate.model_validate(dict(row)) for row in result.mappings()]

    @staticmethod
    def _hits(ranked: list[tuple[Candidate, float]], offset: int) -> list[SearchHit]:
        return [
            SearchHit(
                id=cand.id,
                score=round(float(score), 6),
                rank=offset + i + 1,
                title=cand.title,
                snippet=cand.body[:SNIPPET_CHARS],
                source_type=cand.source_type,
            )
            for i, (cand, score) in enumerate(ranked)
        ]
