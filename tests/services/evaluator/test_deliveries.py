"""Task batches against the real nats-server: every task of a batch gets its result and the batch is
acked, and a batch whose worker dies mid-batch is redelivered and stores each result exactly once
(a failing task of a batch: ``test_worker.py``, retried alone with every attempt counted)."""

from __future__ import annotations

import asyncio
import contextlib

import pytest
from nats.aio.client import Client as NatsClient
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.coordinator.experiments.store.results import store_results
from services.evaluator.worker import EvalWorker
from shared.db.models import Experiment, ExperimentItem
from tests.services.coordinator.experiments.store.experiment_rows import running_experiment
from tests.services.evaluator.conftest import StartWorker
from tests.services.evaluator.fakes import (
    FakeAgent,
    ResultReader,
    agent_task,
    assert_all_settled,
    ok_response,
    publish_batch,
    redeclare_workers_consumer,
)
from yardstick.api.agent_messages import AgentInvokeRequest, AgentInvokeResponse
from yardstick.api.topology import Topology

pytestmark = [pytest.mark.integration, pytest.mark.timeout(60)]


async def test_every_task_of_a_batch_gets_one_result_and_the_batch_is_acked(
    nats_client: NatsClient, topology: Topology, start_worker: StartWorker
) -> None:
    js = nats_client.jetstream()
    agent = await FakeAgent(nats_client, topology.agent_invoke).start()
    worker = await start_worker()
    await publish_batch(js, topology, [agent_task(f"item-{i}") for i in range(5)])

    results = await ResultReader(js, topology).next_results(5)

    assert sorted(r.item_id for r in results) == [f"item-{i}" for i in range(5)]
    assert {(r.status, r.attempts) for r in results} == {("ok", 1)}
    assert len(agent.seen) == 5
    await worker.stop()
    await assert_all_settled(js, topology)


async def _kill(worker: EvalWorker) -> None:
    """As a SIGKILL would leave it: nothing settled, the connection gone (no drain, no give-back)."""
    tasks = [t for t in (worker._loop_task, *worker._in_flight) if t is not None]
    for task in tasks:
        task.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await asyncio.gather(*tasks, return_exceptions=True)
    assert worker._nc is not None
    await worker._nc.close()


async def test_a_batch_killed_mid_batch_is_redelivered_and_stores_each_result_once(
    nats_client: NatsClient,
    topology: Topology,
    start_worker: StartWorker,
    session_factory: async_sessionmaker[AsyncSession],
) -> None:
    items = ["a", "b", "c", "d"]
    experiment_id = await running_experiment(session_factory, "killed-batch", items)

    holding = True

    async def hold_d(req: AgentInvokeRequest) -> AgentInvokeResponse | None:
        return None if holding and req.customer_utterance == "d" else ok_response(req)

    js = nats_client.jetstream()
    await redeclare_workers_consumer(js, topology, ack_wait=1.0)
    agent = await FakeAgent(nats_client, topology.agent_invoke, answer=hold_d).start()
    first = await start_worker()  # inproc-0
    reader = ResultReader(js, topology)
    await publish_batch(
        js, topology, [agent_task(i, i, experiment_id=experiment_id, timeout_s=30) for i in items]
    )
    before_kill = await reader.next_results(3)  # a, b, c done; d still running: the batch is not acked
    assert sorted(r.item_id for r in before_kill) == ["a", "b", "c"]
    await _kill(first)

    holding = False
    second = await start_worker()
    after_kill = await reader.next_results(4)  # the whole batch again, after ack_wait

    assert sorted(r.item_id for r in after_kill) == items
    assert {r.worker_id for r in after_kill} == {second.settings.worker_id}
    assert [s.request.customer_utterance for s in agent.seen].count("a") == 2  # at-least-once
    for batch in (before_kill, after_kill):  # as the collector writes them, in arrival order
        async with session_factory() as session:
            await store_results(session, batch)
            await session.commit()
    async with session_factory() as session:
        stored = await session.get(Experiment, experiment_id)
        assert stored is not None and (stored.done, stored.errors) == (4, 0)
        statuses = await session.execute(
            select(ExperimentItem.status, func.count())
            .where(ExperimentItem.experiment_id == experiment_id)
            .group_by(ExperimentItem.status)
        )
        assert {status: count for status, count in statuses.all()} == {"ok": 4}
