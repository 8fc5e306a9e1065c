"""Plugin evaluators end to end: an installed package's entry points load into the eval workers,
which advertise them on eval.evaluators; the coordinator checks submissions against the workers."""

from __future__ import annotations

from pathlib import Path

import pytest
from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg

from services.evaluator.worker import EvalWorker
from shared.contracts.evaluator_catalog import WorkerEvaluators
from shared.evaluators.catalog import describe_loaded
from tests.evaluator_registry import REGISTRY
from tests.services.coordinator.conftest import experiment_body
from tests.services.coordinator.harness import Coordinator, ScriptedAgent, synthetic_items
from tests.shared.evaluators.plugin_install import PLUGIN_EVALUATORS, installed_plugin, load_plugins_into
from yardstick.api.nats_interest import subscriptions_registered
from yardstick.api.topology import Topology

__all__ = ["installed_plugin"]

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]

PLUGGED = ["demo_said_ok", 'demo_length:{"max_chars": 1000}']


async def test_an_installed_plugin_scores_and_a_worker_without_it_is_named(
    installed_plugin: Path,
    coordinator: Coordinator,
    workers: list[EvalWorker],
    agent: ScriptedAgent,
    nats_client: NatsClient,
    topology: Topology,
) -> None:
    load_plugins_into(REGISTRY)  # what a worker and the coordinator do at start-up
    await coordinator.push("syn", synthetic_items(6))

    accepted = await coordinator.client.post("/experiments", json=experiment_body(evaluators=PLUGGED))
    assert accepted.status_code == 202, accepted.text
    done = await coordinator.finished(accepted.json()["id"])
    assert done["status"] == "completed"
    assert done["aggregates"]["metrics"]["demo_said_ok"]["mean"] == 1.0
    assert done["aggregates"]["metrics"]["demo_length"]["mean"] == 1.0

    bad_args = await coordinator.client.post(
        "/experiments", json=experiment_body(evaluators=['demo_length:{"max_chars": "many"}'])
    )
    assert bad_args.status_code == 422 and "max_chars" in bad_args.json()["detail"]

    # a worker started before the plugin was installed: it advertises only the built-in evaluators
    old = WorkerEvaluators(
        worker_id="old-worker",
        evaluators=[d for d in describe_loaded(REGISTRY) if d.name not in PLUGIN_EVALUATORS],
    )

    async def answer(msg: Msg) -> None:
        await msg.respond(old.model_dump_json().encode())

    sub = await nats_client.subscribe(topology.eval_evaluators, cb=answer)
    await subscriptions_registered(nats_client)
    try:
        lacking = await coordinator.client.post("/experiments", json=experiment_body(evaluators=PLUGGED))
        assert lacking.status_code == 422, lacking.text
        detail = lacking.json()["detail"]
        assert "'demo_said_ok' is loaded on eval worker(s) w0, w1 but not on old-worker" in detail

        unknown = await coordinator.client.post(
            "/experiments", json=experiment_body(evaluators=["no_such_metric"])
        )
        assert unknown.status_code == 422
        detail = unknown.json()["detail"]
        assert "'no_such_metric'" in detail and "(old-worker, w0, w1)" in detail
        assert "known: " in detail and "order_correctness" in detail and "demo_said_ok" in detail
    finally:
        await sub.unsubscribe()
