from __future__ import annotations

import httpx
import pytest
from nats.aio.client import Client as NatsClient

from services.sampler.http_app import create_app
from services.sampler.settings import SamplerSettings
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
