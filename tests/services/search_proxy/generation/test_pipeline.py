from __future__ import annotations

from typing import Any

import pytest

from services.search_proxy.corpus import load_corpus
from services.search_proxy.generation.pipeline import GenerationConfig, GenerationError, run_generation
from services.search_proxy.generation.schemas import CriticScore, QueryBatch
from services.search_proxy.settings import DEFAULT_CORPUS
from shared.datasets.retrieval_golden import parse_golden
from tests.services.search_proxy.generation.fake_models import FakeChatModel

pytestmark = pytest.mark.unit

CORPUS = load_corpus(DEFAULT_CORPUS)

QUERIES: list[dict[str, Any]] = [
    {
        "query": "what caused the redis outage?",
        "query_type": "technical",
        "expected_event_ids": ["pr:redis-outage-postmortem"],
        "complexity": "simple",
        "reasoning": "post-mortem",
    },
    {
        "query": "what did sarah fix in payments",
        "query_type": "actor",
        "expected_event_ids": ["push:checkout-service-fix"],
        "complexity": "simple",
        "reasoning": "sarah's push",
    },
    {
        "query": "robotic query text here",
        "query_type": "technical",
        "expected_event_ids": ["push:ci-cache-fix"],
        "complexity": "simple",
        "reasoning": "low quality",
    },
    {
        "query": "which ticket mentions the moon",
        "query_type": "technical",
        "expected_event_ids": ["pr:does-not-exist"],
        "complexity": "simple",
        "reasoning": "hallucinated id",
    },
    {
        "query": "anything about kafka rebalancing?",
        "query_type": "null",
        "expected_event_ids": [],
        "complexity": "simple",
        "reasoning": "not in corpus",
    },
]


def generator() -> FakeChatModel:
    batches = iter([QUERIES[:3], QUERIES[3:] + QUERIES[:1]])  # second batch repeats one query
    return FakeChatModel({QueryBatch: lambda _prompt: {"queries": next(batches)}})


def critic_score(prompt: str) -> CriticScore:
    overall = 2 if "robotic query text" in prompt else 4
    return CriticScore(
        query_naturalness=overall,
        relevance_correctness=4,
        answer_feasibility=4,
        overall_score=overall,
        reasoning="fine",
    )


async def test_pipeline_filters_by_critic_and_ground_truth() -> None:
    gen, critic = generator(), FakeChatModel({CriticScore: critic_score})
    report = await run_generation(
        gen, critic, CORPUS, GenerationConfig(count=6, batch_size=3, max_batches=2, version="2.0.0")
    )
    assert report.generated == 5, "duplicates are dropped"
    assert report.passed_critic == 4
    assert report.dropped_missing_ids == ["which ticket mentions the moon"]
    cases = report.dataset.cases
    assert [c.query for c in cases] == [
        "what caused the redis outage?",
        "what did sarah fix in payments",
        "anything about kafka rebalancing?",
    ]
    assert [c.id for c in cases] == ["golden-001", "golden-002", "golden-003"]
    assert all(c.source == "synthetic" and c.annotator == "llm" for c in cases)
    assert cases[0].metadata is not None and cases[0].metadata["critic"]["overall_score"] == 4
    assert report.dataset.version == "2.0.0"
    parse_golden(report.dataset.model_dump(mode="json", by_alias=True))
    assert "pr:redis-outage-postmortem" in gen.prompts[0], "the corpus is in the prompt"
    assert len(critic.prompts) == 5


async def test_max_cases_caps_the_dataset() -> None:
    critic = FakeChatModel({CriticScore: critic_score})
    report = await run_generation(
        generator(), critic, CORPUS, GenerationConfig(count=6, batch_size=3, max_batches=2, max_cases=1)
    )
    assert len(report.dataset.cases) == 1


async def test_nothing_usable_is_an_error() -> None:
    harsh = FakeChatModel(
        {
            CriticScore: lambda _p: {
                "query_naturalness": 1,
                "relevance_correctness": 1,
                "answer_feasibility": 1,
                "overall_score": 1,
                "reasoning": "no",
            }
        }
    )
    with pytest.raises(GenerationError, match="0 passed the critic"):
        await run_generation(generator(), harsh, CORPUS, GenerationConfig(count=3, batch_size=3))
