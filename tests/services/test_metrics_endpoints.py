"""Every service answers ``GET /metrics`` with the Prometheus text format, even before its lifespan
connected anything (a scrape never waits on NATS or PostgreSQL, and never fails for them)."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest
from fastapi import FastAPI

from services.agent.http_app import create_app as agent_app
from services.agent.settings import AgentSettings
from services.coordinator.app import create_app as coordinator_app
from services.coordinator.settings import CoordinatorSettings
from services.evaluator.http_app import build_app as worker_app
from services.evaluator.settings import WorkerSettings
from services.evaluator.worker import EvalWorker
from services.ingest.http_app import create_app as ingest_app
from services.ingest.settings import IngestSettings
from services.sampler.http_app import create_app as sampler_app
from services.sampler.settings import SamplerSettings
from services.search_proxy.http_app import create_app as search_proxy_app
from services.search_proxy.settings import SearchProxySettings

pytestmark = pytest.mark.unit

SERVICES: dict[str, Callable[[], FastAPI]] = {
    "coordinator": lambda: coordinator_app(CoordinatorSettings()),
    "evaluator": lambda: worker_app(EvalWorker(WorkerSettings())),
    "agent": lambda: agent_app(AgentSettings()),
    "search-proxy": lambda: search_proxy_app(SearchProxySettings()),
    "sampler": lambda: sampler_app(SamplerSettings()),
    "ingest": lambda: ingest_app(IngestSettings()),
}


@pytest.mark.parametrize("service", sorted(SERVICES))
async def test_every_service_serves_metrics(service: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgresql+asyncpg://u@/db?host=/nonexistent")
    monkeypatch.setenv("NATS_URL", "nats://127.0.0.1:1")
    monkeypatch.setenv("YARDSTICK_API_KEY_SECRET", "test-secret")
    app = SERVICES[service]()
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://svc") as client:
        response = await client.get("/metrics")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain; version=")
    assert "# HELP yardstick_connection_up" in response.text
