"""Real worker processes (``python -m services.evaluator.main``) sharing one durable consumer."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import AsyncIterator, Callable

import httpx
import pytest
from nats.aio.client import Client as NatsClient

from tests.services.evaluator.fakes import (
    FakeAgent,
    ResultReader,
    Seen,
    agent_task,
    ok_response,
    publish_task,
    redeclare_workers_consumer,
)
from tests.services.evaluator.worker_process import WorkerProcess
from yardstick.api.agent_messages import AgentInvokeRequest, AgentInvokeResponse
from yardstick.api.topology import Topology

pytestmark = [pytest.mark.integration, pytest.mark.timeout(240)]

SpawnWorker = Callable[..., WorkerProcess]


@pytest.fixture
async def spawn(nats_url: str, topology: Topology, nats_client: NatsClient) -> AsyncIterator[SpawnWorker]:
    started: list[WorkerProcess] = []

    def make(worker_id: str, **env: str) -> WorkerProcess:
        proc = WorkerProcess(nats_url, topology, worker_id, **env)
        started.append(proc)
        return proc

    yield make
    for proc in started:
        await proc.kill()


def workers_of(seen: list[Seen]) -> set[str]:
    return {s.headers["Yardstick-Worker-Id"] for s in seen}


async def test_two_worker_processes_share_the_load_and_serve_healthz(
    nats_client: NatsClient, topology: Topology, spawn: SpawnWorker
) -> None:
    release = asyncio.Event()

    async def held_until_four_in_flight(req: AgentInvokeRequest) -> AgentInvokeResponse | None:
        await release.wait()
        return ok_response(req)

    js = nats_client.jetstream()
    agent = await FakeAgent(nats_client, topology.agent_invoke, answer=held_until_four_in_flight).start()
    procs = [spawn(name, EVAL_CONCURRENCY="2") for name in ("proc-a", "proc-b")]
    await asyncio.gather(*(p.start() for p in procs))
    await asyncio.gather(*(p.wait_for_log("eval worker ready") for p in procs))
    for i in range(8):
        await publish_task(js, topology, agent_task(f"item-{i}", timeout_s=30))

    # Each process holds at most 2 tasks, so 4 requests in flight need both of them.
    in_flight = await agent.wait_for(lambda seen: len(seen) >= 4, within_s=60)
    assert len({s.headers["Yardstick-Task-Id"] for s in in_flight}) == 4
    port = (await procs[0].wait_for_log("http listening"))["http_port"]
    assert workers_of(in_flight) == {"proc-a", "proc-b"}
    async with httpx.AsyncClient() as http:
        health = (await http.get(f"http://127.0.0.1:{port}/healthz")).json()
    assert health["worker_id"] == "proc-a" and health["connected"] is True
    assert health["in_flight"] == 2 and health["concurrency"] == 2
    release.set()

    results = await ResultReader(js, topology).next_results(8, within_s=60)
    assert sorted(r.item_id for r in results) == sorted(f"item-{i}" for i in range(8))
    assert {r.status for r in results} == {"ok"}
    assert {r.worker_id for r in results} == {"proc-a", "proc-b"}


async def test_task_of_a_killed_worker_is_redelivered_and_yields_exactly_one_result(
    nats_client: NatsClient, topology: Topology, spawn: SpawnWorker
) -> None:
    js = nats_client.jetstream()
    await redeclare_workers_consumer(js, topology, ack_wait=2.0)

    async def block_first_attempt(req: AgentInvokeRequest) -> AgentInvokeResponse | None:
        return None if len(agent.seen) == 1 else ok_response(req)  # the first caller never gets a reply

    agent = await FakeAgent(nats_client, topology.agent_invoke, answer=block_first_attempt).start()
    procs = {p.worker_id: p for p in (spawn("kill-a", EVAL_CONCURRENCY="1"), spawn("kill-b"))}
    await asyncio.gather(*(p.start() for p in procs.values()))
    await asyncio.gather(*(p.wait_for_log("eval worker ready") for p in procs.values()))
    task = agent_task("doomed", timeout_s=20)
    await publish_task(js, topology, task)

    [first] = await agent.wait_for(lambda seen: len(seen) >= 1)
    victim = first.headers["Yardstick-Worker-Id"]
    procs[victim].signal(signal.SIGKILL)
    assert await procs[victim].wait_exit() == -signal.SIGKILL

    reader = ResultReader(js, topology, ack=False)
    [result] = await reader.next_results(1, within_s=60)
    survivor = next(name for name in procs if name != victim)
    assert (result.item_id, result.status, result.worker_id, result.attempts) == ("doomed", "ok", survivor, 2)
    assert [s.headers["Yardstick-Attempt"] for s in agent.seen] == ["1", "2"]
    stream = await js.stream_info(topology.eval_results_stream)
    assert stream.state.messages == 1


async def test_sigterm_drains_in_flight_work_and_stops_fetching(
    nats_client: NatsClient, topology: Topology, spawn: SpawnWorker
) -> None:
    release = asyncio.Event()

    async def held(req: AgentInvokeRequest) -> AgentInvokeResponse | None:
        await release.wait()
        return ok_response(req)

    js = nats_client.jetstream()
    agent = await FakeAgent(nats_client, topology.agent_invoke, answer=held).start()
    proc = await spawn("drainer", EVAL_CONCURRENCY="2", EVAL_FETCH_TIMEOUT_S="0.5").start()
    await proc.wait_for_log("eval worker ready")
    await publish_task(js, topology, agent_task("in-flight"))
    await agent.wait_for(lambda seen: len(seen) == 1)

    proc.signal(signal.SIGTERM)
    await proc.wait_for_log("eval worker draining")
    await publish_task(js, topology, agent_task("after-sigterm", "a late order"))
    release.set()

    [result] = await ResultReader(js, topology).next_results(1)
    assert (result.item_id, result.status, result.worker_id) == ("in-flight", "ok", "drainer")
    assert await proc.wait_exit() == 0
    assert [s.request.customer_utterance for s in agent.seen] == ["one hash brown"]
    # The task published after SIGTERM was not taken (or was handed straight back): it is available now.
    tasks = await js.pull_subscribe_bind(durable="eval-workers", stream=topology.eval_tasks_stream)
    [left] = await tasks.fetch(1, timeout=3)
    assert b'"after-sigterm"' in left.data


async def test_unreachable_nats_exits_with_the_startup_failure_code(topology: Topology) -> None:
    proc = WorkerProcess("nats://127.0.0.1:1", topology, "lonely", NATS_CONNECT_DEADLINE_S="1")
    try:
        await proc.start()
        assert await proc.wait_exit() == 3
        assert any(
            "cannot connect to NATS at nats://127.0.0.1:1 within 1s" in str(line) for line in proc.lines
        )
    finally:
        await proc.kill()
