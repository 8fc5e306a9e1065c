"""The coordinator end to end on the real NATS + Postgres: fan-out, results, aggregates, restart."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.evaluator.worker import EvalWorker
from shared.db.models import ExperimentItem, Score
from shared.evaluators.registry import RegisteredEvaluator
from tests.evaluator_registry import add_for_test
from tests.services.coordinator.conftest import experiment_body
from tests.services.coordinator.harness import REFUSED, Coordinator, ScriptedAgent, synthetic_items
from yardstick.api.evaluation import Evaluation

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]


async def test_experiment_runs_end_to_end_with_expected_aggregates(
    coordinator: Coordinator, workers: list[EvalWorker], agent: ScriptedAgent
) -> None:
    await coordinator.push("syn", synthetic_items(30))
    accepted = await coordinator.client.post("/experiments", json=experiment_body(name="e2e"))
    assert accepted.status_code == 202, accepted.text
    done = await coordinator.finished(accepted.json()["id"])

    assert done["status"] == "completed"
    assert done["progress"] == {
        "total": 30,
        "done": 30,
        "errors": 0,
        "in_flight": 0,
        "pending": 0,
        "cache_hits": 0,
        "judge_cache_hits": 0,
        "throttled": 0,
        "target_concurrency": 8,  # no throttle: the workers' 8 task slots, under the experiment's 10
    }
    metrics = done["aggregates"]["metrics"]
    assert metrics["order_correctness"]["mean"] == pytest.approx(1.0)
    assert metrics["order_correctness"]["count"] == 30
    assert metrics["tool_call_accuracy"]["mean"] == pytest.approx(1.0)
    run_scores = {s["name"]: s["value"] for s in done["aggregates"]["run_scores"]}
    assert run_scores["avg_order_correctness"] == pytest.approx(1.0)
    assert set(done["aggregates"]["breakdowns"]["category"]) == {"simple", "quantity", "combo"}

    page = (await coordinator.client.get(f"/experiments/{done['id']}/items", params={"limit": 5})).json()
    assert page["total"] == 30 and len(page["items"]) == 5
    assert {s["name"] for s in page["items"][0]["scores"]} == {"order_correctness", "tool_call_accuracy"}
    report = await coordinator.client.get(f"/experiments/{done['id']}/report", params={"format": "json"})
    assert report.status_code == 200
    assert report.json()["summary"]["total_tests"] == 30


async def test_concurrency_limit_is_never_exceeded(
    coordinator: Coordinator, workers: list[EvalWorker], agent: ScriptedAgent
) -> None:
    agent.hold_s = 0.03  # each call takes a while, so in-flight requests overlap
    await coordinator.push("syn", synthetic_items(40))
    accepted = (await coordinator.client.post("/experiments", json=experiment_body(concurrency=3))).json()
    done = await coordinator.finished(accepted["id"])

    assert done["progress"]["done"] == 40
    # Observed at the target: two workers with 8 slots each could run 16 at once; the
    # experiment's limit of 3 is what holds it down.
    assert agent.max_in_flight <= 3
    assert agent.max_in_flight >= 2, "the test would not notice a broken limit without overlap"


async def test_two_experiments_share_the_workers(
    coordinator: Coordinator, workers: list[EvalWorker], agent: ScriptedAgent
) -> None:
    """The second experiment runs beside the first, not after it: its first result lands before
    the first experiment's last one (the first takes at least 0.6 s: 48 calls of 50 ms, 4 at once)."""
    agent.hold_s = 0.05
    await coordinator.push("syn", synthetic_items(48))
    ids = [
        (
            await coordinator.client.post(
                "/experiments", json=experiment_body(name=f"side-{i}", concurrency=4)
            )
        ).json()["id"]
        for i in range(2)
    ]
    for experiment_id in ids:
        assert (await coordinator.finished(experiment_id))["status"] == "completed"
    async with coordinator.runtime.sessions() as session:
        stmt = (
            select(
                ExperimentItem.experiment_id,
                func.min(ExperimentItem.finished_at),
                func.max(ExperimentItem.finished_at),
            )
            .where(ExperimentItem.experiment_id.in_(ids))
            .group_by(ExperimentItem.experiment_id)
        )
        spans = {e: (first, last) for e, first, last in (await session.execute(stmt)).all()}
    first_run, second_run = spans[ids[0]], spans[ids[1]]
    assert second_run[0] < first_run[1], "the second experiment starved: it began after the first had ended"


async def test_restarted_coordinator_finishes_with_every_item_recorded_once(
    coordinator: Coordinator,
    workers: list[EvalWorker],
    agent: ScriptedAgent,
    session_factory: async_sessionmaker[AsyncSession],
) -> None:
    agent.hold_s = 0.02
    await coordinator.push("syn", synthetic_items(60))
    accepted = (await coordinator.client.post("/experiments", json=experiment_body(concurrency=6))).json()
    await coordinator.wait_until(accepted["id"], lambda b: b["progress"]["done"] >= 10)

    await coordinator.restart()  # tasks in flight keep running; their results wait in the stream
    done = await coordinator.finished(accepted["id"])

    assert done["status"] == "completed"
    assert done["progress"]["done"] == 60
    async with session_factory() as session:
        terminal = await session.scalar(
            select(func.count()).where(
                ExperimentItem.experiment_id == accepted["id"], ExperimentItem.status == "ok"
            )
        )
        scores = await session.scalar(select(func.count()).where(Score.experiment_id == accepted["id"]))
    assert terminal == 60
    assert scores == 60 * 2  # one row per item per evaluator: nothing lost, nothing doubled


async def test_one_failing_item_does_not_sink_the_experiment(
    coordinator: Coordinator, workers: list[EvalWorker], agent: ScriptedAgent
) -> None:
    items = synthetic_items(5)
    items[2]["input"] = {"customer_utterance": "order not-a-number"}  # the scripted agent raises on this
    await coordinator.push("syn", items)
    accepted = (await coordinator.client.post("/experiments", json=experiment_body(timeout_s=1.0))).json()
    done = await coordinator.finished(accepted["id"], timeout=90)
    assert done["status"] == "completed"
    assert done["progress"]["done"] == 5
    assert done["progress"]["errors"] == 1
    errored = (
        await coordinator.client.get(f"/experiments/{accepted['id']}/items", params={"status": "error"})
    ).json()
    assert [i["item_id"] for i in errored["items"]] == ["syn-0002"]
    assert errored["items"][0]["error"]


def _explodes(**_: Any) -> Evaluation:
    raise RuntimeError("judge exploded")


async def test_a_failing_target_and_a_failing_evaluator_are_typed_from_row_to_report(
    coordinator: Coordinator,
    workers: list[EvalWorker],
    agent: ScriptedAgent,
    session_factory: async_sessionmaker[AsyncSession],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    add_for_test(monkeypatch, RegisteredEvaluator("explodes", _explodes, "item", "2", "raises", False))
    items = synthetic_items(4)
    items[1]["input"] = {"customer_utterance": f"{REFUSED} 1"}  # the agent answers with its own error
    await coordinator.push("syn", items)
    body = experiment_body(evaluators=["order_correctness", "explodes"], run_evaluators=[])
    accepted = (await coordinator.client.post("/experiments", json=body)).json()
    done = await coordinator.finished(accepted["id"])
    assert (done["status"], done["progress"]["errors"]) == ("completed", 1)

    async with session_factory() as session:
        refused = await session.scalar(
            select(ExperimentItem).where(
                ExperimentItem.experiment_id == accepted["id"], ExperimentItem.item_id == "syn-0001"
            )
        )
        exploded = (
            await session.scalars(
                select(Score).where(Score.experiment_id == accepted["id"], Score.name == "explodes")
            )
        ).all()
        measured = await session.scalar(
            select(func.count()).where(
                Score.experiment_id == accepted["id"],
                Score.name == "order_correctness",
                Score.failure.is_(None),
            )
        )
    assert refused is not None and refused.failure is not None
    target = refused.failure
    assert (target.source, target.type, target.evaluator) == ("target", "TargetRejected", None)
    assert target.message == "agent answered with an error: cannot take this order"
    assert "TargetRejected" in target.traceback
    assert refused.error == f"TargetRejected: {target.message}", "the string column is kept for older readers"
    assert len(exploded) == 3 and measured == 3  # the three ok items; the refused one has no scores
    for row in exploded:
        assert row.value is None and row.failure is not None
        assert (row.failure.source, row.failure.type, row.failure.message) == (
            "evaluator",
            "RuntimeError",
            "judge exploded",
        )
        assert (row.failure.evaluator, row.failure.evaluator_version) == ("explodes", "2")
        assert "in _explodes" in row.failure.traceback and row.error == "RuntimeError: judge exploded"

    failures = (await coordinator.client.get(f"/experiments/{accepted['id']}/failures")).json()
    groups = [
        (g["source"], g["type"], g["evaluator"], g["evaluator_version"], g["message"], g["count"])
        for g in failures["errors"]
    ]
    assert groups == [
        ("evaluator", "RuntimeError", "explodes", "2", "judge exploded", 3),
        ("target", "TargetRejected", None, None, target.message, 1),
    ]

    served = (await coordinator.client.get(f"/experiments/{accepted['id']}/items")).json()["items"]
    assert [i["failure"]["type"] if i["failure"] else None for i in served] == [
        None,
        "TargetRejected",
        None,
        None,
    ]
    assert served[1]["error"] == refused.error

    report = (await coordinator.client.get(f"/experiments/{accepted['id']}/report")).json()
    by_name = {r["name"]: r for r in report["test_results"]}
    assert by_name["syn-0001"]["failure"]["source"] == "target"
    assert by_name["syn-0001"]["failure"]["message"] == target.message
    assert by_name["syn-0000"]["failure"] is None
    [entry] = [e for e in by_name["syn-0000"]["evaluations"] if e["key"] == "explodes"]
    assert entry["details"]["failure"]["evaluator_version"] == "2"
    assert entry["details"]["error"] == "RuntimeError: judge exploded"


async def test_events_stream_reports_progress_until_completed(
    coordinator: Coordinator, workers: list[EvalWorker], agent: ScriptedAgent
) -> None:
    await coordinator.push("syn", synthetic_items(10))
    accepted = (await coordinator.client.post("/experiments", json=experiment_body())).json()
    kinds: list[str] = []

    async def read() -> None:
        async with coordinator.client.stream("GET", f"/experiments/{accepted['id']}/events") as response:
            async for line in response.aiter_lines():
                if line.startswith("event: "):
                    kinds.append(line.removeprefix("event: "))

    await asyncio.wait_for(read(), timeout=60)
    assert kinds[-1] == "completed" or kinds == ["completed"]
