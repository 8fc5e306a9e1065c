"""The corpus backend against the real PostgreSQL: loading, the three modes, filters, paging."""

from __future__ import annotations

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.search_proxy.corpus import Corpus, load_corpus
from services.search_proxy.corpus_backend import CorpusSearchBackend
from services.search_proxy.corpus_store import ensure_corpus_loaded, loaded_count
from services.search_proxy.search_filters import SearchFilters
from services.search_proxy.settings import DEFAULT_CORPUS
from shared.datasets.retrieval_golden import load_golden
from shared.db.models import SearchDocument
from yardstick.api.search_messages import SearchMode

pytestmark = [pytest.mark.integration, pytest.mark.timeout(60)]

CORPUS = load_corpus(DEFAULT_CORPUS)
NONE = SearchFilters()


@pytest.fixture
async def backend(session_factory: async_sessionmaker[AsyncSession]) -> CorpusSearchBackend:
    await ensure_corpus_loaded(session_factory, CORPUS)
    return CorpusSearchBackend(session_factory, CORPUS)


async def ids(backend: CorpusSearchBackend, query: str, mode: SearchMode, limit: int = 5) -> list[str]:
    return [hit.id for hit in await backend.search(query, mode, limit, 0, NONE)]


async def test_loading_is_idempotent(session_factory: async_sessionmaker[AsyncSession]) -> None:
    assert await ensure_corpus_loaded(session_factory, CORPUS)
    assert not await ensure_corpus_loaded(session_factory, CORPUS)
    assert await loaded_count(session_factory, CORPUS.corpus_version) == len(CORPUS.events)


async def test_a_new_corpus_version_overwrites_rows_with_the_same_id(
    session_factory: async_sessionmaker[AsyncSession],
) -> None:
    await ensure_corpus_loaded(session_factory, CORPUS)
    raw = CORPUS.model_dump(mode="json", by_alias=True)
    raw["events"][0]["message"] = "fix: plug the payment processor leak for good"
    edited = Corpus.model_validate(raw)
    assert await ensure_corpus_loaded(session_factory, edited)
    assert await loaded_count(session_factory, CORPUS.corpus_version) == 0
    async with session_factory() as session:
        row = await session.get(SearchDocument, "push:checkout-service-fix")
    assert row is not None and row.title.endswith("for good")
    assert row.doc_metadata["repo"] == "acme/checkout-service"
    hits = await CorpusSearchBackend(session_factory, edited).search("plug leak", "fast", 5, 0, NONE)
    assert [h.id for h in hits] == ["push:checkout-service-fix"]


@pytest.mark.parametrize("mode", ["fast", "balanced", "thorough"])
async def test_redis_outage_finds_the_post_mortem_first(
    backend: CorpusSearchBackend, mode: SearchMode
) -> None:
    hits = await backend.search("redis outage", mode, 5, 0, NONE)
    assert hits[0].id == "pr:redis-outage-postmortem"
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
    assert hits[0].title.startswith("Post-mortem") and hits[0].source_type == "github_pr"


async def test_fast_needs_every_word_balanced_falls_back_to_or(backend: CorpusSearchBackend) -> None:
    assert await ids(backend, "reddis outage", "fast") == []
    assert "pr:redis-outage-postmortem" in await ids(backend, "reddis outage", "balanced")


async def test_fast_ignores_the_actor_field(backend: CorpusSearchBackend) -> None:
    assert await ids(backend, "marcus", "fast") == []
    assert "pr:opentelemetry-tracing" in await ids(backend, "marcus", "balanced", 10)


async def test_thorough_uses_actor_and_date_hints(backend: CorpusSearchBackend) -> None:
    assert (await ids(backend, "what did sarah push last week", "thorough"))[0] == "push:checkout-service-fix"
    marcus_prs = {
        "pr:api-rate-limiting",
        "pr:flaky-integration-tests",
        "pr:opentelemetry-tracing",
        "pr:indexer-backpressure",
    }
    assert set(await ids(backend, "pull requests by Marcus", "thorough", 4)) == marcus_prs


async def test_filters_and_paging(backend: CorpusSearchBackend) -> None:
    only_errors = await backend.search(
        "redis", "balanced", 10, 0, SearchFilters(source_type=["sentry_error"])
    )
    assert only_errors and all(h.source_type == "sentry_error" for h in only_errors)
    page1 = await backend.search("checkout", "balanced", 3, 0, NONE)
    page2 = await backend.search("checkout", "balanced", 3, 3, NONE)
    assert [h.rank for h in page2] == [4, 5, 6]
    assert not {h.id for h in page1} & {h.id for h in page2}


async def test_modes_differ_on_the_golden_set(backend: CorpusSearchBackend) -> None:
    """Mean reciprocal rank per mode over the golden set's non-null cases."""
    golden = load_golden(DEFAULT_CORPUS.parent / "golden-v1.json")
    mrr: dict[str, float] = {}
    for mode in ("fast", "balanced", "thorough"):
        total = 0.0
        cases = [c for c in golden.cases if c.expected_observation_ids]
        for case in cases:
            found = await ids(backend, case.query, mode, 10)  # type: ignore[arg-type]
            relevant = set(case.expected_observation_ids)
            total += next((1 / (i + 1) for i, d in enumerate(found) if d in relevant), 0.0)
        mrr[mode] = total / len(cases)
    assert mrr["fast"] < mrr["balanced"] <= mrr["thorough"], mrr
