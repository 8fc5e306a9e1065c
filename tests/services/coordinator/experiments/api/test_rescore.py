"""Re-scoring through the API on the real NATS + Postgres: a new experiment from a finished one's
stored outputs, scored by the eval workers without calling the target."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.evaluator.worker import EvalWorker
from shared.db.models import ExperimentItem, Score
from tests.services.coordinator.conftest import experiment_body
from tests.services.coordinator.harness import Coordinator, ScriptedAgent, synthetic_items

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]

BROKEN = {"id": "broken", "input": {"query": "no utterance"}, "metadata": {"category": "simple"}}


async def _scores(
    sessions: async_sessionmaker[AsyncSession], experiment_id: str
) -> dict[tuple[str, int, str], tuple[float | None, str | None, str | None]]:
    async with sessions() as session:
        rows = (await session.execute(select(Score).where(Score.experiment_id == experiment_id))).scalars()
        return {(r.item_id, r.trial, r.name): (r.value, r.comment, r.error) for r in rows}


async def _statuses(sessions: async_sessionmaker[AsyncSession], experiment_id: str) -> dict[str, str]:
    async with sessions() as session:
        rows = (
            await session.execute(select(ExperimentItem).where(ExperimentItem.experiment_id == experiment_id))
        ).scalars()
        return {f"{r.item_id}/{r.trial}": f"{r.status}:{r.error}" for r in rows}


async def _source(coordinator: Coordinator, agent: ScriptedAgent) -> dict[str, Any]:
    agent.drop_fraction = 0.3  # some items score 0, so equal scores mean something
    await coordinator.push("syn", [*synthetic_items(24), BROKEN])
    accepted = await coordinator.client.post("/experiments", json=experiment_body(name="src", repetitions=2))
    assert accepted.status_code == 202, accepted.text
    return await coordinator.finished(accepted.json()["id"])


async def test_rescore_with_the_same_evaluators_equals_the_source_without_calling_the_target(
    coordinator: Coordinator,
    workers: list[EvalWorker],
    agent: ScriptedAgent,
    session_factory: async_sessionmaker[AsyncSession],
) -> None:
    source = await _source(coordinator, agent)
    assert source["status"] == "completed" and source["progress"]["errors"] == 2
    calls = agent.calls

    accepted = await coordinator.client.post(f"/experiments/{source['id']}/rescore", json={})
    assert accepted.status_code == 202, accepted.text
    rescored = await coordinator.finished(accepted.json()["id"])

    assert agent.calls == calls, "re-scoring called the target"
    assert rescored["status"] == "completed"
    assert rescored["rescored_from"] == source["id"]
    assert rescored["name"] == "src-rescored"
    assert rescored["progress"]["total"] == source["progress"]["total"] == 50
    assert rescored["progress"]["errors"] == 2, "items that errored in the source stay errors"
    assert await _scores(session_factory, rescored["id"]) == await _scores(session_factory, source["id"])
    assert await _statuses(session_factory, rescored["id"]) == await _statuses(session_factory, source["id"])
    assert rescored["aggregates"]["metrics"] == source["aggregates"]["metrics"]
    assert rescored["aggregates"]["run_scores"] == source["aggregates"]["run_scores"]

    comparison = await coordinator.client.post(
        "/comparisons", json={"baseline_id": source["id"], "candidate_id": rescored["id"]}
    )
    assert comparison.status_code in (200, 201), comparison.text
    report = comparison.json()["report"]
    assert report["n_pairs"] == 50 and not report["unmatched_baseline"] and not report["unmatched_candidate"]
    assert report["regression"] is False


async def test_rescore_with_other_evaluators_and_refusals(
    coordinator: Coordinator,
    workers: list[EvalWorker],
    agent: ScriptedAgent,
    session_factory: async_sessionmaker[AsyncSession],
) -> None:
    source = await _source(coordinator, agent)
    calls = agent.calls

    accepted = await coordinator.client.post(
        f"/experiments/{source['id']}/rescore",
        json={"evaluators": ["no_hallucinated_items"], "run_evaluators": [], "name": "hallucinations"},
    )
    assert accepted.status_code == 202, accepted.text
    rescored = await coordinator.finished(accepted.json()["id"])
    assert agent.calls == calls
    assert rescored["name"] == "hallucinations" and rescored["status"] == "completed"
    assert set(rescored["aggregates"]["metrics"]) == {"no_hallucinated_items"}
    names = {name for (_, _, name) in await _scores(session_factory, rescored["id"])}
    assert names == {"no_hallucinated_items"}

    unknown = await coordinator.client.post(
        f"/experiments/{source['id']}/rescore", json={"evaluators": ["no_such_metric"]}
    )
    assert unknown.status_code == 422
    assert "no_such_metric" in unknown.json()["detail"] and "order_correctness" in unknown.json()["detail"]
    missing = await coordinator.client.post("/experiments/nope/rescore", json={})
    assert missing.status_code == 404
    assert missing.headers["content-type"].startswith("application/problem+json")
