"""Cancelling a running experiment on the real NATS + Postgres."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.evaluator.worker import EvalWorker
from shared.db.models import ExperimentItem
from tests.services.coordinator.conftest import experiment_body
from tests.services.coordinator.harness import Coordinator, ScriptedAgent, synthetic_items

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]


async def item_statuses(sessions: async_sessionmaker[AsyncSession], experiment_id: str) -> dict[str, int]:
    async with sessions() as session:
        rows = await session.execute(
            select(ExperimentItem.status, func.count())
            .where(ExperimentItem.experiment_id == experiment_id)
            .group_by(ExperimentItem.status)
        )
        return {status: int(n) for status, n in rows.all()}


async def test_a_cancelled_experiment_dispatches_nothing_more_and_keeps_what_ran(
    coordinator: Coordinator,
    workers: list[EvalWorker],
    agent: ScriptedAgent,
    session_factory: async_sessionmaker[AsyncSession],
) -> None:
    agent.gate = asyncio.Event()  # the agent holds every call until the gate opens
    await coordinator.push("syn", synthetic_items(20))
    accepted = await coordinator.client.post("/experiments", json=experiment_body(name="c", concurrency=3))
    experiment_id = accepted.json()["id"]
    await coordinator.wait_until(experiment_id, lambda b: b["progress"]["in_flight"] == 3)

    cancelled = await coordinator.client.post(f"/experiments/{experiment_id}/cancel")
    assert cancelled.status_code == 200, cancelled.text
    body = cancelled.json()
    assert body["status"] == "cancelled" and body["error"] == "cancelled on request"
    assert body["progress"]["in_flight"] == 3 and body["progress"]["pending"] == 17
    again = await coordinator.client.post(f"/experiments/{experiment_id}/cancel")
    assert again.status_code == 200 and again.json()["status"] == "cancelled"  # harmless twice

    agent.gate.set()  # the three tasks that were running finish and are stored
    after = await coordinator.wait_until(experiment_id, lambda b: b["progress"]["done"] == 3)
    # A second experiment run to completion: the dispatcher has made many passes since.
    other = await coordinator.client.post("/experiments", json=experiment_body(name="other"))
    assert (await coordinator.finished(other.json()["id"]))["status"] == "completed"

    assert await item_statuses(session_factory, experiment_id) == {"ok": 3, "pending": 17}
    final = (await coordinator.client.get(f"/experiments/{experiment_id}")).json()
    assert final["status"] == "cancelled" and final["aggregates"] is None  # never finalized
    assert final["progress"] == after["progress"]
    assert final["progress"]["throttled"] == 0  # the workers' adaptive concurrency is theirs to report
    assert {k: v for k, v in final["progress"].items() if k not in ("throttled", "target_concurrency")} == {
        "total": 20,
        "done": 3,
        "errors": 0,
        "in_flight": 0,
        "pending": 17,
        "cache_hits": 0,
        "judge_cache_hits": 0,
    }
    page = (await coordinator.client.get(f"/experiments/{experiment_id}/items")).json()
    assert sum(1 for item in page["items"] if item["status"] == "ok") == 3


async def test_only_running_experiments_can_be_cancelled(
    coordinator: Coordinator, workers: list[EvalWorker], agent: ScriptedAgent
) -> None:
    await coordinator.push("syn", synthetic_items(5))
    accepted = await coordinator.client.post("/experiments", json=experiment_body(name="done"))
    experiment_id = accepted.json()["id"]
    assert (await coordinator.finished(experiment_id))["status"] == "completed"

    late = await coordinator.client.post(f"/experiments/{experiment_id}/cancel")
    assert late.status_code == 409
    assert late.json()["detail"] == (
        f"experiment {experiment_id!r} is completed: only a running experiment can be cancelled"
    )
    unknown = await coordinator.client.post("/experiments/nope/cancel")
    assert unknown.status_code == 404 and "not found" in unknown.json()["detail"]
