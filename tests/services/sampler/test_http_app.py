from __future__ import annotations

import httpx
import pytest
from nats.aio.client import Client as NatsClient

from services.sampler.http_app import create_app
from services.sampler.settings import SamplerSettings
from tests.services.sampler.spans import batch, trace_spans
from yardstick.api.topology import Topology

pytestmark = pytest.mark.integration


async def test_healthz_reports_the_running_consumer(
    database_url: str, nats_url: str, nats_client: NatsClient, topology: Topology
) -> None:
    settings = SamplerSettings(
        database_url=database_url, nats_url=nats_url, nats_namespace=topology.namespace
    )
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://sampler") as client:
            response = await client.get("/healthz")
    assert response.status_code == 200
    assert response.json()["ok"] is True
    assert response.json()["service"] == "sampler"


async def test_healthz_and_metrics_report_the_spans_not_stored_yet(
    database_url: str, nats_url: str, nats_client: NatsClient, topology: Topology
) -> None:
    """Three messages of traces without their root span (kept open for ``quiet_s``): held by this
    sampler, not acknowledged, so the shared consumer's backlog counts them."""
    js = nats_client.jetstream()
    for n in range(3):
        partial = [s for s in trace_spans(n) if s.parent_span_id is not None]
        await js.publish(topology.traffic_spans, batch(partial).model_dump_json().encode())
    settings = SamplerSettings(
        database_url=database_url,
        nats_url=nats_url,
        nats_namespace=topology.namespace,
        sampler_trace_quiet_s=600,
    )
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://sampler") as client:
            health = (await client.get("/healthz")).json()
            metrics = (await client.get("/metrics")).text
    assert health["spans_backlog"]["messages"] == 3
    assert health["spans_backlog"]["pending"] + health["spans_backlog"]["ack_pending"] == 3
    lines = [
        line
        for line in metrics.splitlines()
        if line.startswith("yardstick_jetstream_consumer_") and topology.traffic_spans_stream in line
    ]
    assert sum(float(line.rsplit(" ", 1)[1]) for line in lines) == 3
