"""A conversation experiment end to end on the real NATS and PostgreSQL: the shipped conversation
dataset pushed, replayed by the real agent (offline model, its agent.converse handler on NATS)
through two eval workers, scored by the conversation evaluators and aggregated."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from faststream.nats import NatsBroker

from services.agent.invoke_endpoint import register_conversation_handler, register_invoke_handler
from services.agent.runtime import AgentRuntime
from services.evaluator.worker import EvalWorker
from shared.contracts import Topology
from shared.datasets.files import load_dataset_file
from shared.messaging import ConnectionHealth
from shared.messaging.faststream_broker import new_broker, start_serving
from tests.services.agent.conftest import offline_settings
from tests.services.coordinator.harness import Coordinator

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]

SHIPPED = Path(__file__).resolve().parents[5] / "datasets" / "drive-thru" / "conversations-v1.yaml"


@pytest.fixture
async def real_agent(nats_url: str, topology: Topology) -> AsyncIterator[NatsBroker]:
    """The agent's request/reply handlers (offline model) on the test's NATS namespace."""
    runtime = AgentRuntime.from_settings(
        offline_settings(nats_url=nats_url, nats_namespace=topology.namespace)
    )
    broker = new_broker(nats_url, "test.agent.nats", ConnectionHealth(), "agent", reconnect_wait_s=0.05)
    register_invoke_handler(broker, runtime)
    register_conversation_handler(broker, runtime)
    await start_serving(broker)
    yield broker
    await broker.stop()


async def test_a_conversation_experiment_runs_end_to_end(
    coordinator: Coordinator, workers: list[EvalWorker], real_agent: NatsBroker
) -> None:
    dataset = load_dataset_file(SHIPPED)
    await coordinator.push("conversations", [item.model_dump() for item in dataset.items], kind=dataset.kind)
    body = {"name": "conv", "dataset": "conversations", "target": {"kind": "agent"}, "concurrency": 6}
    accepted = await coordinator.client.post("/experiments", json=body)
    assert accepted.status_code == 202, accepted.text
    experiment = await coordinator.finished(accepted.json()["id"], timeout=90)
    assert experiment["status"] == "completed", experiment

    page = await coordinator.client.get(f"/experiments/{experiment['id']}/items", params={"limit": 100})
    rows = page.json()["items"]
    assert len(rows) == len(dataset.items)
    by_id = {row["item_id"]: row for row in rows}
    assert all(row["status"] == "ok" for row in rows), [r for r in rows if r["status"] != "ok"]

    def score(item_id: str, metric: str) -> float | None:
        return next(s["value"] for s in by_id[item_id]["scores"] if s["name"] == metric)

    # a whole order built over turns, read back, confirmed and finalized in one thread
    simple = by_id["conv-two-items-two-turns"]
    assert simple["output"]["finalized"] and len(simple["output"]["turns"]) == 4
    for metric in ("final_order_correctness", "turn_order_accuracy", "finalized_as_expected"):
        assert score("conv-two-items-two-turns", metric) == 1.0, metric
    assert score("conv-two-items-two-turns", "readback_before_finalize") == 1.0
    # the v1 agent cannot remove items: the per-turn check catches it
    assert score("conv-remove-item", "turn_order_accuracy") == 0.5
    assert score("conv-not-finished-yet", "finalized_as_expected") == 1.0
    assert score("conv-not-finished-yet", "readback_before_finalize") is None

    aggregates = experiment["aggregates"]
    assert aggregates is not None
    assert 0.5 < aggregates["pass_rate"] < 1.0
