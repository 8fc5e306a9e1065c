"""Dataset generation through the ``openai`` provider against a provider on a bad day: replies
that never parse are skipped and counted, the rest make the dataset."""

from __future__ import annotations

import json

import pytest

from services.cli.generate_retrieval import build_models, generation_configs
from services.search_proxy.generation.pipeline import GenerationConfig, run_generation
from tests.llm_provider import BadDayProvider, Reply
from tests.services.search_proxy.generation.test_pipeline import CORPUS, QUERIES

pytestmark = pytest.mark.integration

SCORE = {
    "query_naturalness": 4,
    "relevance_correctness": 4,
    "answer_feasibility": 4,
    "overall_score": 4,
    "reasoning": "fine",
}


async def test_unparsable_batches_and_critic_replies_are_skipped_and_counted(
    provider: BadDayProvider,
) -> None:
    provider.refuse = {"json_schema"}
    provider.then(
        Reply(content="Here are some queries: 1. redis? 2. payments?"),  # batch 1: never parses
        Reply(content="Sorry, I cannot."),
        Reply.json({"queries": QUERIES[:2]}),  # batch 2
        Reply(content=f"Scores:\n```json\n{json.dumps(SCORE)}\n```"),  # critic of query 1
        Reply(content="no idea"),  # critic of query 2: never parses
        Reply(content="still no idea"),
    )
    generator, critic = build_models(*generation_configs("openai", "bad-day-model", None))
    config = GenerationConfig(count=2, batch_size=2, max_batches=3, concurrency=1)
    report = await run_generation(generator, critic, CORPUS, config)
    assert report.generated == 2 and report.unparsable_replies == 2
    assert [c.query for c in report.dataset.cases] == [QUERIES[0]["query"]]
    assert not provider.script
