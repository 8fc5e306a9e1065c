"""An experiment is told at submission when it asks for more concurrency than the running eval
workers hold, or when no worker runs (real NATS, in-process workers answering on eval.capacity)."""

from __future__ import annotations

import pytest

from services.coordinator.experiments.dispatch.capacity import capacity_warnings
from services.evaluator.worker import EvalWorker
from shared.contracts.capacity import WorkerCapacity
from tests.services.coordinator.conftest import experiment_body
from tests.services.coordinator.harness import Coordinator, ScriptedAgent, synthetic_items
from tests.services.evaluator.in_process import running_workers
from yardstick.api.topology import Topology


@pytest.mark.unit
def test_warnings_in_words() -> None:
    fleet = [WorkerCapacity(worker_id="a", concurrency=8, in_flight=0)] * 2
    assert capacity_warnings(16, fleet) == []
    [too_many] = capacity_warnings(20, fleet)
    assert too_many.startswith("concurrency 20 asks for more than the 2 running eval worker(s) hold (16 task")
    assert capacity_warnings(1, [])[0].startswith("no eval worker answered")


@pytest.mark.integration
@pytest.mark.timeout(60)
async def test_submission_reports_the_fleets_capacity(
    coordinator: Coordinator, workers: list[EvalWorker]
) -> None:
    await coordinator.push("syn", synthetic_items(3))
    slots = sum(w.settings.eval_concurrency for w in workers)
    fits = (await coordinator.client.post("/experiments", json=experiment_body(concurrency=slots))).json()
    assert fits["warnings"] == []
    over = (await coordinator.client.post("/experiments", json=experiment_body(concurrency=slots + 4))).json()
    assert over["warnings"] == [
        f"concurrency {slots + 4} asks for more than the {len(workers)} running eval worker(s) hold "
        f"({slots} task slots): at most {slots} items run at once; start more workers or raise "
        "EVAL_CONCURRENCY"
    ]


@pytest.mark.integration
@pytest.mark.timeout(60)
async def test_no_worker_is_said(coordinator: Coordinator) -> None:
    await coordinator.push("syn", synthetic_items(3))
    accepted = (await coordinator.client.post("/experiments", json=experiment_body())).json()
    assert accepted["warnings"][0].startswith("no eval worker answered")


@pytest.mark.integration
@pytest.mark.timeout(120)
async def test_concurrency_above_the_old_cap_is_accepted_and_completes(
    coordinator: Coordinator, nats_url: str, topology: Topology, agent: ScriptedAgent
) -> None:
    """C = 1,500 (the API refused more than 1,000 before) on two workers of 800 slots each."""
    agent.hold_s = 0.3  # calls overlap: more than the usual test fleet's 16 slots run at once
    await coordinator.push("syn", synthetic_items(40))
    async with running_workers(nats_url, topology, id_prefix="wide", eval_concurrency=800):
        accepted = await coordinator.client.post("/experiments", json=experiment_body(concurrency=1500))
        assert accepted.status_code == 202, accepted.text
        assert accepted.json()["warnings"] == []  # 1,600 slots hold it
        done = await coordinator.finished(accepted.json()["id"])
    assert done["status"] == "completed"
    assert (done["progress"]["done"], done["progress"]["errors"]) == (40, 0)
    assert agent.max_in_flight > 16, agent.max_in_flight
