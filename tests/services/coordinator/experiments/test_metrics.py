"""A small experiment on the real stack moves the counters of ``GET /metrics`` by exactly what
happened: the coordinator's (published, stored, consumer lag) read from its app, a real worker
process's (settled, in flight, connections) over HTTP, and the target counters (throttles, errors)
of in-process workers against a provider that answers 429 or 500."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from nats.aio.client import Client as NatsClient
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from services.evaluator.throttling.target_identity import throttle_key
from tests.rate_limited_server import RateLimitedServer
from tests.services.coordinator.conftest import experiment_body
from tests.services.coordinator.experiments.dispatch.test_rate_limits import LOOPBACK, http_experiment, start
from tests.services.coordinator.harness import Coordinator, ScriptedAgent, synthetic_items
from tests.services.evaluator.in_process import running_workers
from tests.services.evaluator.worker_process import WorkerProcess
from yardstick.api.eval_messages import AgentTarget
from yardstick.api.topology import COORDINATOR_RESULTS_CONSUMER, EVAL_WORKERS_CONSUMER, Topology

pytestmark = [pytest.mark.integration, pytest.mark.timeout(90)]

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def parse(text: str) -> Samples:
    return {
        (s.name, frozenset(s.labels.items())): float(s.value)
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


async def scrape(client: httpx.AsyncClient, url: str = "/metrics") -> Samples:
    response = await client.get(url)
    assert response.status_code == 200, response.text
    return parse(response.text)


@pytest.fixture
async def worker_process(nats_url: str, topology: Topology, nats_client: NatsClient) -> AsyncIterator[str]:
    """One real eval worker process; yields its /metrics URL."""
    proc = WorkerProcess(nats_url, topology, "metrics-w", EVAL_CONCURRENCY="4")
    await proc.start()
    try:
        await proc.wait_for_log("eval worker ready", within_s=60)  # a loaded machine starts slowly
        port = (await proc.wait_for_log("http listening"))["http_port"]
        yield f"http://127.0.0.1:{port}/metrics"
    finally:
        await proc.kill()


async def test_an_experiment_moves_the_coordinator_and_worker_counters(
    coordinator: Coordinator, agent: ScriptedAgent, worker_process: str, topology: Topology
) -> None:
    items = 7
    await coordinator.push("syn", synthetic_items(items))
    before = await scrape(coordinator.client)
    response = await coordinator.client.post("/experiments", json=experiment_body(concurrency=3))
    assert response.status_code == 202, response.text
    done = await coordinator.finished(response.json()["id"])
    assert done["status"] == "completed" and done["progress"]["done"] == items, done

    after = await scrape(coordinator.client)
    moved = [
        value(after, name, **labels) - value(before, name, **labels)
        for name, labels in [
            ("yardstick_eval_tasks_published_total", {"result": "new"}),
            ("yardstick_eval_results_stored_total", {"status": "ok"}),
            ("yardstick_eval_results_stored_total", {"status": "error"}),
        ]
    ]
    assert moved == [items, items, 0], moved
    assert value(after, "yardstick_connection_up", server="nats") == 1
    assert value(after, "yardstick_connection_up", server="postgres") == 1
    for stream, consumer in [
        (topology.eval_tasks_stream, EVAL_WORKERS_CONSUMER),
        (topology.eval_results_stream, COORDINATOR_RESULTS_CONSUMER),
    ]:
        lag = {"stream": stream, "consumer": consumer}
        assert after.get(("yardstick_jetstream_consumer_pending_messages", frozenset(lag.items()))) == 0
        assert value(after, "yardstick_jetstream_consumer_ack_pending_messages", **lag) == 0

    async with httpx.AsyncClient() as http:
        worker = await scrape(http, worker_process)
    assert value(worker, "yardstick_eval_tasks_settled_total", outcome="ok") == items  # a fresh process
    assert value(worker, "yardstick_eval_tasks_settled_total", outcome="retry") == 0
    assert value(worker, "yardstick_eval_tasks_in_flight") == 0
    assert value(worker, "yardstick_connection_up", server="nats") == 1
    assert (
        value(worker, "yardstick_target_concurrency", target=throttle_key(AgentTarget())) == 4
    )  # never throttled
    assert (
        "yardstick_jetstream_consumer_pending_messages",
        frozenset({"stream": topology.eval_tasks_stream, "consumer": EVAL_WORKERS_CONSUMER}.items()),
    ) in worker


def counter(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


@pytest.fixture
async def limited() -> AsyncIterator[RateLimitedServer]:
    server = RateLimitedServer(limit=5, retry_after="0.2")
    await server.start()
    yield server
    await server.stop()


async def test_every_429_and_every_failed_call_is_counted_once(
    coordinator: Coordinator, nats_url: str, topology: Topology, limited: RateLimitedServer
) -> None:
    settings = {"target_allowed_networks": LOOPBACK, "eval_backoff_base_s": 0.05, "eval_backoff_max_s": 0.1}
    async with running_workers(nats_url, topology, eval_concurrency=20, **settings):
        throttles = counter("yardstick_target_throttles_total", kind="http", status="429")
        await coordinator.push("syn", synthetic_items(40))
        done = await coordinator.finished(await start(coordinator, http_experiment("lim", limited.url, 20)))
        assert done["progress"]["errors"] == 0 and limited.throttled > 0, done
        moved = counter("yardstick_target_throttles_total", kind="http", status="429") - throttles
        assert moved == limited.throttled == done["progress"]["throttled"]

        limited.fail_status = 500
        errors = counter("yardstick_target_errors_total", kind="http", transient="true")
        calls = len(limited.arrivals)
        await coordinator.push("syn", synthetic_items(2))
        done = await coordinator.finished(await start(coordinator, http_experiment("down", limited.url, 2)))
        assert done["progress"]["errors"] == 2, done
        moved = counter("yardstick_target_errors_total", kind="http", transient="true") - errors
        assert moved == len(limited.arrivals) - calls == 2 * 4  # every attempt of both items
