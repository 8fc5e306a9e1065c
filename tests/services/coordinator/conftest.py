from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from nats.aio.client import Client as NatsClient

from services.evaluator.worker import EvalWorker
from tests.services.coordinator.harness import Coordinator, ScriptedAgent, start_coordinator
from tests.services.evaluator.in_process import running_workers
from tests.services.live_api import api  # noqa: F401  (the coordinator over real HTTP)
from yardstick.api.topology import Topology


@pytest.fixture
async def coordinator(
    database_url: str, nats_url: str, topology: Topology, nats_client: NatsClient
) -> AsyncIterator[Coordinator]:
    coord = await start_coordinator(database_url, nats_url, topology)
    yield coord
    await coord.runtime.stop()
    await coord.client.aclose()


@pytest.fixture
async def workers(
    nats_url: str, topology: Topology, nats_client: NatsClient
) -> AsyncIterator[list[EvalWorker]]:
    """Two in-process eval workers."""
    async with running_workers(nats_url, topology) as started:
        yield started


@pytest.fixture
async def agent(nats_client: NatsClient, topology: Topology) -> AsyncIterator[ScriptedAgent]:
    scripted = await ScriptedAgent(nats_client, topology.agent_invoke).start()
    yield scripted
    await scripted.stop()


def experiment_body(**overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "name": "exp",
        "dataset": "syn",
        "target": {"kind": "agent"},
        "concurrency": 10,
        "evaluators": ["order_correctness", "tool_call_accuracy"],
        "run_evaluators": ["avg_order_correctness"],
    }
    return body | overrides
