"""Worker-held credits on the real servers: the coordinator splits an experiment's concurrency over
the live eval workers (read back from the KV bucket), never more than C run at once across them, and
the credits of a killed worker go to the survivor while every item is still recorded exactly once."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import AsyncIterator, Callable

import pytest
from nats.aio.client import Client as NatsClient
from nats.js.kv import KV_DEL, KV_PURGE
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.evaluator.worker import EvalWorker
from shared.contracts.credits import CreditGrant
from shared.db.models import ExperimentItem, Score
from tests.services.coordinator.conftest import experiment_body
from tests.services.coordinator.harness import Coordinator, ScriptedAgent, synthetic_items
from tests.services.evaluator.fakes import redeclare_workers_consumer
from tests.services.evaluator.worker_process import WorkerProcess
from yardstick.api.topology import Topology

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]


async def grant_where(
    nc: NatsClient,
    topology: Topology,
    experiment_id: str,
    predicate: Callable[[CreditGrant], bool],
    within_s: float = 30.0,
) -> CreditGrant:
    """The first grant of the experiment (the current one, then each rewrite) that satisfies ``predicate``."""
    kv = await nc.jetstream().key_value(topology.eval_credits_bucket)
    watcher = await kv.watch(experiment_id)
    seen: list[CreditGrant] = []
    try:
        async with asyncio.timeout(within_s):
            async for entry in watcher:
                if entry is None or not entry.value:
                    continue
                grant = CreditGrant.model_validate_json(entry.value)
                seen.append(grant)
                if predicate(grant):
                    return grant
    except TimeoutError:
        pass
    finally:
        await watcher.stop()  # type: ignore[no-untyped-call]
    raise AssertionError(f"no grant of {experiment_id} satisfied the condition; grants seen: {seen}")


async def grant_deleted(
    nc: NatsClient, topology: Topology, experiment_id: str, within_s: float = 30.0
) -> None:
    """Until the experiment's grant is deleted (the watch delivers the delete marker, at once if the
    key is already deleted)."""
    kv = await nc.jetstream().key_value(topology.eval_credits_bucket)
    watcher = await kv.watch(experiment_id)
    try:
        async with asyncio.timeout(within_s):
            async for entry in watcher:
                if entry is not None and entry.operation in (KV_DEL, KV_PURGE):
                    return
    except TimeoutError:
        pass
    finally:
        await watcher.stop()  # type: ignore[no-untyped-call]
    raise AssertionError(f"the grant of the finished experiment {experiment_id} was left behind")


async def start(coordinator: Coordinator, items: int, concurrency: int) -> str:
    await coordinator.push("syn", synthetic_items(items))
    accepted = await coordinator.client.post("/experiments", json=experiment_body(concurrency=concurrency))
    assert accepted.status_code == 202, accepted.text
    experiment_id: str = accepted.json()["id"]
    return experiment_id


async def recorded(sessions: async_sessionmaker[AsyncSession], experiment_id: str) -> tuple[int, int]:
    """(items recorded ok, score rows) of the experiment."""
    async with sessions() as session:
        ok = await session.scalar(
            select(func.count()).where(
                ExperimentItem.experiment_id == experiment_id, ExperimentItem.status == "ok"
            )
        )
        scores = await session.scalar(select(func.count()).where(Score.experiment_id == experiment_id))
    return ok or 0, scores or 0


async def test_credits_split_c_and_running_never_exceeds_it_across_two_workers(
    coordinator: Coordinator,
    workers: list[EvalWorker],
    agent: ScriptedAgent,
    nats_client: NatsClient,
    topology: Topology,
) -> None:
    agent.hold_s = 0.05  # simulated latency, so that calls overlap
    experiment_id = await start(coordinator, items=160, concurrency=6)

    grant = await grant_where(nats_client, topology, experiment_id, lambda g: len(g.grants) == 2)
    assert grant.grants == {"w0": 3, "w1": 3} and grant.concurrency == 6
    dispatcher = coordinator.runtime.dispatcher
    stocked = await coordinator.wait_until(
        experiment_id, lambda b: dispatcher.stock_of(experiment_id) == 12 or b["status"] != "running"
    )
    assert stocked["status"] == "running", "the stock never grew to C + read-ahead while it ran"
    done = await coordinator.finished(experiment_id)

    assert done["status"] == "completed" and done["progress"]["done"] == 160
    assert agent.max_in_flight <= 6, "more than C ran at once"
    assert agent.max_in_flight >= 4, "the test would not notice a broken limit without overlap"
    assert sum(w.status().outcomes.get("returned", 0) for w in workers) == 0
    await grant_deleted(nats_client, topology, experiment_id)


@pytest.fixture
async def processes(
    nats_url: str, topology: Topology, nats_client: NatsClient
) -> AsyncIterator[list[WorkerProcess]]:
    """Two eval worker processes with 8 slots each, on a consumer that redelivers after 2 s."""
    await redeclare_workers_consumer(nats_client.jetstream(), topology, ack_wait=2.0)
    procs = [WorkerProcess(nats_url, topology, name, EVAL_CONCURRENCY="8") for name in ("pa", "pb")]
    await asyncio.gather(*(p.start() for p in procs))
    await asyncio.gather(*(p.wait_for_log("eval worker ready", within_s=60) for p in procs))
    yield procs
    for proc in procs:
        await proc.kill()


async def test_credits_of_a_killed_worker_go_to_the_survivor_and_every_item_lands_once(
    coordinator: Coordinator,
    processes: list[WorkerProcess],
    agent: ScriptedAgent,
    nats_client: NatsClient,
    topology: Topology,
    session_factory: async_sessionmaker[AsyncSession],
) -> None:
    agent.hold_s = 0.1
    experiment_id = await start(coordinator, items=120, concurrency=8)
    await grant_where(nats_client, topology, experiment_id, lambda g: g.grants == {"pa": 4, "pb": 4})
    await coordinator.wait_until(experiment_id, lambda b: b["progress"]["done"] >= 20)

    assert agent.max_in_flight <= 8, "more than C ran at once before the kill"
    victim = processes[0]
    victim.signal(signal.SIGKILL)
    assert await victim.wait_exit() == -signal.SIGKILL
    after = await grant_where(nats_client, topology, experiment_id, lambda g: "pa" not in g.grants)
    assert after.grants == {"pb": 8}, "the killed worker's credits did not go to the survivor"
    # The killed worker's calls already at the agent run on until answered (no platform can recall
    # them): fresh-clone runs saw 9 = the survivor's 8 + one of those. Once they are answered, the
    # survivor alone holds C.
    await agent.answered()
    agent.max_in_flight = agent.in_flight

    done = await coordinator.finished(experiment_id, timeout=120)
    assert done["status"] == "completed" and done["progress"]["done"] == 120
    assert await recorded(session_factory, experiment_id) == (120, 120 * 2)
    assert agent.max_in_flight <= 8
