"""``GET /metrics``: the registry in text format, with the probes' values as of the scrape."""

from __future__ import annotations

from dataclasses import dataclass

import httpx
import nats.errors
import pytest
from fastapi import FastAPI
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from shared.db import make_engine
from shared.metrics import Probe, consumer_lag_probe, metrics_router, nats_probe, postgres_probe
from yardstick.api.nats_connection import ConnectionHealth

pytestmark = pytest.mark.unit


def scrape_app(*probes: Probe) -> httpx.AsyncClient:
    app = FastAPI()
    app.include_router(metrics_router(*probes))
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://svc")


def sample(text: str, name: str, **labels: str) -> float | None:
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if s.name == name and s.labels == labels:
                return float(s.value)
    return None


async def test_metrics_are_served_in_the_prometheus_text_format() -> None:
    async with scrape_app() as client:
        response = await client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain; version=")
    assert "# TYPE yardstick_eval_tasks_published_total counter" in response.text
    assert "process_cpu_seconds_total" in response.text or "python_info" in response.text


async def test_the_nats_probe_says_whether_the_connection_is_up_at_scrape_time() -> None:
    health = ConnectionHealth()
    async with scrape_app(nats_probe(lambda: health)) as client:
        assert sample((await client.get("/metrics")).text, "yardstick_connection_up", server="nats") == 0
        health.mark_connected()
        assert sample((await client.get("/metrics")).text, "yardstick_connection_up", server="nats") == 1


async def test_a_failing_probe_leaves_the_scrape_answering() -> None:
    async def broken() -> None:
        raise RuntimeError("the server is away")

    async with scrape_app(broken, postgres_probe(lambda: None)) as client:
        response = await client.get("/metrics")
    assert response.status_code == 200
    assert "yardstick_eval_tasks_in_flight" in response.text


@dataclass
class FakeInfo:
    num_pending: int
    num_ack_pending: int


@dataclass
class FakeJetStream:
    infos: dict[tuple[str, str], FakeInfo]
    calls: int = 0

    async def consumer_info(self, stream: str, consumer: str, timeout: float) -> FakeInfo:
        self.calls += 1
        if (stream, consumer) not in self.infos:
            raise nats.errors.TimeoutError
        return self.infos[(stream, consumer)]


async def test_consumer_lag_is_read_from_the_server_at_each_scrape() -> None:
    js = FakeJetStream({("S_LAG", "c1"): FakeInfo(num_pending=41, num_ack_pending=7)})
    wanted = [("S_LAG", "c1"), ("S_LAG", "missing")]
    async with scrape_app(consumer_lag_probe(lambda: js, lambda: wanted)) as client:  # type: ignore[arg-type, return-value]
        text = (await client.get("/metrics")).text
        assert (
            sample(text, "yardstick_jetstream_consumer_pending_messages", stream="S_LAG", consumer="c1") == 41
        )
        labels = {"stream": "S_LAG", "consumer": "c1"}
        assert sample(text, "yardstick_jetstream_consumer_ack_pending_messages", **labels) == 7
        assert (
            sample(text, "yardstick_jetstream_consumer_pending_messages", stream="S_LAG", consumer="missing")
            is None
        )
        js.infos[("S_LAG", "c1")] = FakeInfo(num_pending=0, num_ack_pending=0)
        text = (await client.get("/metrics")).text
    assert sample(text, "yardstick_jetstream_consumer_pending_messages", **labels) == 0
    assert js.calls == 4


async def test_no_jetstream_yet_means_no_lag_series() -> None:
    async with scrape_app(consumer_lag_probe(lambda: None, lambda: [("S_NONE", "c")])) as client:
        await client.get("/metrics")
    assert (
        REGISTRY.get_sample_value(
            "yardstick_jetstream_consumer_pending_messages", {"stream": "S_NONE", "consumer": "c"}
        )
        is None
    )


async def test_the_postgres_probe_says_down_when_the_server_does_not_answer() -> None:
    engine = make_engine("postgresql+asyncpg://u@/db?host=/nonexistent-socket-dir")
    try:
        async with scrape_app(postgres_probe(lambda: engine)) as client:
            text = (await client.get("/metrics")).text
    finally:
        await engine.dispose()
    assert sample(text, "yardstick_connection_up", server="postgres") == 0
