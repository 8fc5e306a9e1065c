"""Generation pipeline: generate -> critic score -> filter (overall >= min_score) -> resolve ground
truth against the corpus -> golden dataset (validated). Models are any object with LangChain's
``with_structured_output(schema)`` (:class:`shared.llm.StructuredModel` in production, a fake in
tests). A reply that never parses (:class:`~shared.llm.LlmReplyInvalid`) is skipped and counted:
a generation batch is lost (another is asked, up to ``max_batches``), a query without a critic
score is dropped."""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from datetime import UTC, datetime
from typing import Any, Protocol

from pydantic import BaseModel, Field

from services.search_proxy.corpus import Corpus
from services.search_proxy.generation.prompts import (
    PromptEvent,
    critic_prompt,
    generation_prompt,
    prompt_events,
)
from services.search_proxy.generation.schemas import CriticScore, GeneratedQuery, QueryBatch, ScoredQuery
from shared.datasets.retrieval_golden import QUERY_TYPES, EvalCase, EvalDataset, parse_golden
from shared.llm import LlmReplyInvalid

log = logging.getLogger(__name__)


class StructuredRunnable(Protocol):
    async def ainvoke(self, input: str) -> Any: ...


class StructuredChatModel(Protocol):
    def with_structured_output(self, schema: type[BaseModel]) -> StructuredRunnable: ...


class GenerationError(RuntimeError):
    """The pipeline could not produce a dataset (e.g. every query was filtered out)."""


class GenerationConfig(BaseModel):
    count: int = Field(default=60, ge=1, description="Queries to generate")
    min_score: int = Field(default=3, ge=1, le=5, description="Keep overall_score >= this")
    max_cases: int = Field(default=50, ge=1, description="Cases in the written dataset at most")
    batch_size: int = Field(default=10, ge=1, le=10)
    max_batches: int = Field(default=12, ge=1, description="Give up generating after this many calls")
    concurrency: int = Field(default=4, ge=1, description="Critic calls in flight")
    version: str = "1.0.0"
    workspace_id: str = "yardstick-eval"


class GenerationReport(BaseModel):
    generated: int
    unparsable_replies: int = Field(default=0, description="Model replies skipped: they never parsed")
    passed_critic: int
    resolved: int
    dropped_missing_ids: list[str] = Field(default_factory=list)
    dataset: EvalDataset


def _expect(result: Any, schema: type[BaseModel]) -> Any:
    """Structured output may come back as the model or as a dict (depending on the method)."""
    return result if isinstance(result, schema) else schema.model_validate(result)


async def generate_queries(
    model: StructuredChatModel, corpus: Corpus, config: GenerationConfig, skipped: list[str] | None = None
) -> list[GeneratedQuery]:
    """Up to ``config.count`` distinct queries; a batch whose reply never parses is appended to
    ``skipped`` (its reason) and another batch is asked, up to ``max_batches`` in all."""
    runnable = model.with_structured_output(QueryBatch)
    events = prompt_events(corpus)
    queries: list[GeneratedQuery] = []
    seen: set[str] = set()
    for _ in range(config.max_batches):
        if len(queries) >= config.count:
            break
        counts: Counter[str] = Counter(q.query_type for q in queries)
        wanted = sorted(QUERY_TYPES, key=lambda t: counts[t])[:3]
        n = min(config.batch_size, config.count - len(queries))
        prompt = generation_prompt(events, n, corpus.reference_time.isoformat(), wanted)
        try:
            batch: QueryBatch = _expect(await runnable.ainvoke(prompt), QueryBatch)
        except LlmReplyInvalid as exc:
            log.warning("generation batch skipped: %s", exc.reason)
            (skipped if skipped is not None else []).append(exc.reason)
            continue
        for query in batch.queries:
            key = " ".join(query.query.lower().split())
            if key not in seen:
                seen.add(key)
                queries.append(query)
    return queries[: config.count]


async def score_queries(
    model: StructuredChatModel,
    corpus: Corpus,
    queries: list[GeneratedQuery],
    concurrency: int,
    skipped: list[str] | None = None,
) -> list[ScoredQuery]:
    """The critic's score of each query; a query whose critic reply never parses is left out (its
    reason appended to ``skipped``)."""
    runnable = model.with_structured_output(CriticScore)
    by_id: dict[str, PromptEvent] = {e.id: e for e in prompt_events(corpus)}
    gate = asyncio.Semaphore(concurrency)

    async def score(query: GeneratedQuery) -> ScoredQuery | None:
        expected = [by_id[i] for i in query.expected_event_ids if i in by_id]
        async with gate:
            try:
                result = await runnable.ainvoke(critic_prompt(query.query, query.query_type, expected))
            except LlmReplyInvalid as exc:
                log.warning("critic reply skipped: %s", exc.reason)
                (skipped if skipped is not None else []).append(exc.reason)
                return None
        return ScoredQuery(generated=query, score=_expect(result, CriticScore))

    return [s for s in await asyncio.gather(*(score(q) for q in queries)) if s is not None]


def filter_by_score(scored: list[ScoredQuery], min_score: int) -> list[ScoredQuery]:
    return [s for s in scored if s.score.overall_score >= min_score]


def resolve_ground_truth(
    scored: list[ScoredQuery], corpus_ids: set[str]
) -> tuple[list[ScoredQuery], list[str]]:
    """Keep queries whose expected ids all exist (and null queries that expect none)."""
    kept: list[ScoredQuery] = []
    dropped: list[str] = []
    for item in scored:
        ids = item.generated.expected_event_ids
        is_null = item.generated.query_type == "null"
        if (is_null and not ids) or (not is_null and ids and all(i in corpus_ids for i in ids)):
            kept.append(item)
        else:
            dropped.append(item.generated.query)
    return kept, dropped


def build_dataset(kept: list[ScoredQuery], config: GenerationConfig, description: str) -> EvalDataset:
    cases = [
        EvalCase(
            id=f"golden-{i:03d}",
            query=item.generated.query,
            query_type=item.generated.query_type,
            expected_observation_ids=list(item.generated.expected_event_ids),
            complexity=item.generated.complexity,
            source="synthetic",
            annotator="llm",
            notes=item.generated.reasoning,
            metadata={"critic": item.score.model_dump()},
        )
        for i, item in enumerate(kept[: config.max_cases], start=1)
    ]
    dataset = EvalDataset(
        version=config.version,
        created_at=datetime.now(UTC),
        description=description,
        workspace_id=config.workspace_id,
        cases=cases,
    )
    return parse_golden(dataset.model_dump(mode="json", by_alias=True), "<generated>")


async def run_generation(
    generator: StructuredChatModel, critic: StructuredChatModel, corpus: Corpus, config: GenerationConfig
) -> GenerationReport:
    skipped: list[str] = []
    generated = await generate_queries(generator, corpus, config, skipped)
    log.info("queries generated", extra={"count": len(generated)})
    scored = await score_queries(critic, corpus, generated, config.concurrency, skipped)
    passed = filter_by_score(scored, config.min_score)
    kept, dropped = resolve_ground_truth(passed, corpus.ids)
    if not kept:
        raise GenerationError(
            f"no usable queries: {len(generated)} generated, {len(passed)} passed the critic "
            f"(min_score {config.min_score}), none had ground truth in the corpus; "
            f"{len(skipped)} model replies did not parse"
        )
    description = (
        f"Golden retrieval dataset over corpus {corpus.name} ({corpus.corpus_version}): LLM-generated, "
        f"critic-filtered (overall >= {config.min_score}), ground truth resolved against the corpus"
    )
    return GenerationReport(
        generated=len(generated),
        unparsable_replies=len(skipped),
        passed_critic=len(passed),
        resolved=len(kept),
        dropped_missing_ids=dropped,
        dataset=build_dataset(kept, config, description),
    )
