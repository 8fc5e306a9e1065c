"""The judge cache end to end on the real NATS + Postgres, the judge on the bad-day provider: a
rescore and a rerun with the same judges make no LLM call, and the hits are counted and shown."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.evaluator.worker import EvalWorker
from shared.db.models import Score
from tests.llm_provider import BadDayProvider, Reply, provider
from tests.services.coordinator.conftest import experiment_body
from tests.services.coordinator.harness import Coordinator, ScriptedAgent, synthetic_items
from tests.services.evaluator.in_process import running_workers
from yardstick.api.topology import Topology

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]
__all__ = ["provider"]

RUBRIC = {"name": "llm_rubric", "args": {"criteria": "Confirms the order politely."}}
ITEMS = 6


@pytest.fixture
async def db_workers(database_url: str, nats_url: str, topology: Topology) -> AsyncIterator[list[EvalWorker]]:
    """Two eval workers with a database: their judges use the judge cache."""
    async with running_workers(nats_url, topology, database_url=database_url) as started:
        yield started


async def _judge_scores(sessions: async_sessionmaker[AsyncSession], experiment_id: str) -> dict[str, Any]:
    async with sessions() as session:
        rows = (
            await session.execute(
                select(Score).where(Score.experiment_id == experiment_id, Score.name == "llm_rubric")
            )
        ).scalars()
        return {r.item_id: (r.value, r.comment, r.score_metadata.get("judge_cache")) for r in rows}


async def test_rescore_and_rerun_with_the_same_judges_make_no_llm_call(
    coordinator: Coordinator,
    db_workers: list[EvalWorker],
    agent: ScriptedAgent,
    provider: BadDayProvider,
    session_factory: async_sessionmaker[AsyncSession],
) -> None:
    provider.fallback = Reply.json({"reason": "polite", "score": 4})
    await coordinator.push("syn", synthetic_items(ITEMS))
    body = experiment_body(name="judged", evaluators=["order_correctness", RUBRIC])
    first = await coordinator.finished(
        (await coordinator.client.post("/experiments", json=body)).json()["id"]
    )
    assert first["status"] == "completed", first
    assert len(provider.seen) == ITEMS
    assert first["progress"]["judge_cache_hits"] == 0
    scored = await _judge_scores(session_factory, first["id"])
    assert {v[0] for v in scored.values()} == {0.75} and len(scored) == ITEMS

    accepted = await coordinator.client.post(f"/experiments/{first['id']}/rescore", json={})
    assert accepted.status_code == 202, accepted.text
    rescored = await coordinator.finished(accepted.json()["id"])
    assert len(provider.seen) == ITEMS, "the rescore asked the judge again"
    assert rescored["progress"]["judge_cache_hits"] == ITEMS
    assert rescored["aggregates"]["judge_cache_hits"] == ITEMS
    again = await _judge_scores(session_factory, rescored["id"])
    assert {k: v[:2] for k, v in again.items()} == {k: v[:2] for k, v in scored.items()}
    assert {v[2] for v in again.values()} == {"hit"}

    calls = agent.calls
    rerun = await coordinator.finished(
        (await coordinator.client.post("/experiments", json=body)).json()["id"]
    )
    assert agent.calls == calls + ITEMS, "the rerun calls the target (no output cache)"
    assert len(provider.seen) == ITEMS, "the rerun asked the judge again"
    assert rerun["progress"]["judge_cache_hits"] == ITEMS
    assert (
        rerun["aggregates"]["metrics"]["llm_rubric"]["mean"]
        == first["aggregates"]["metrics"]["llm_rubric"]["mean"]
    )


async def test_workers_without_a_database_ask_every_time(
    coordinator: Coordinator, workers: list[EvalWorker], agent: ScriptedAgent, provider: BadDayProvider
) -> None:
    provider.fallback = Reply.json({"reason": "polite", "score": 4})
    await coordinator.push("syn", synthetic_items(ITEMS))
    body = experiment_body(name="judged", evaluators=[RUBRIC])
    for _ in range(2):
        done = await coordinator.finished(
            (await coordinator.client.post("/experiments", json=body)).json()["id"]
        )
        assert done["progress"]["judge_cache_hits"] == 0
    assert len(provider.seen) == 2 * ITEMS


async def test_a_run_or_rescore_without_the_judge_cache_asks_again(
    coordinator: Coordinator, db_workers: list[EvalWorker], agent: ScriptedAgent, provider: BadDayProvider
) -> None:
    provider.fallback = Reply.json({"reason": "polite", "score": 4})
    await coordinator.push("syn", synthetic_items(ITEMS))
    body = experiment_body(name="judged", evaluators=[RUBRIC])
    first = await coordinator.finished(
        (await coordinator.client.post("/experiments", json=body)).json()["id"]
    )
    assert len(provider.seen) == ITEMS

    uncached = {**body, "judge_cache": False}
    rerun = await coordinator.finished(
        (await coordinator.client.post("/experiments", json=uncached)).json()["id"]
    )
    assert len(provider.seen) == 2 * ITEMS and rerun["progress"]["judge_cache_hits"] == 0
    accepted = await coordinator.client.post(
        f"/experiments/{first['id']}/rescore", json={"judge_cache": False}
    )
    rescored = await coordinator.finished(accepted.json()["id"])
    assert len(provider.seen) == 3 * ITEMS and rescored["progress"]["judge_cache_hits"] == 0
    cached = await coordinator.finished(
        (await coordinator.client.post(f"/experiments/{first['id']}/rescore", json={})).json()["id"]
    )
    assert len(provider.seen) == 3 * ITEMS and cached["progress"]["judge_cache_hits"] == ITEMS
