"""The drive-thru agent reporting its chat turns over OTLP to the real ingest service, and the real
sampler on the spans: what the agent's online tests share."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from nats.aio.client import Client as NatsClient
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.agent.http_app import create_app as create_agent_app
from services.agent.settings import AgentSettings
from services.cli.traffic_cmd import SimulationResult, load_menu_items, simulate
from tests.services.agent.app_client import running
from tests.services.agent.conftest import offline_settings
from tests.services.ingest.harness import Ingest, ingest_settings, serve_ingest
from tests.services.sampler.consuming import tracing_sampler
from yardstick.api.agent_messages import OfflineBehaviour
from yardstick.api.topology import Topology

__all__ = ["agent_conversations", "ingest", "traced_agent_settings", "tracing_sampler"]

Sessions = async_sessionmaker[AsyncSession]
ITEMS = load_menu_items()


@pytest.fixture
def ingest(database_url: str, nats_url: str, topology: Topology, nats_client: NatsClient) -> Iterator[Ingest]:
    """The ingest service over HTTP on the test's NATS and Postgres (import it as a fixture)."""
    with serve_ingest(ingest_settings(database_url, nats_url, topology)) as served:
        yield served


def traced_agent_settings(
    database_url: str, nats_url: str, topology: Topology, otlp_url: str, ingest_key: str, **extra: Any
) -> AgentSettings:
    """The offline agent on the test's NATS and Postgres, exporting its traces to ``otlp_url``."""
    return offline_settings(
        database_url=database_url,
        nats_url=nats_url,
        nats_namespace=topology.namespace,
        OTEL_EXPORTER_OTLP_ENDPOINT=otlp_url,
        OTEL_EXPORTER_OTLP_HEADERS=f"Authorization=Bearer%20{ingest_key}",
        **extra,
    )


async def agent_conversations(
    database_url: str,
    nats_url: str,
    topology: Topology,
    otlp_url: str,
    ingest_key: str,
    conversations: int,
    *,
    seed: int,
    behaviour: OfflineBehaviour | None = None,
) -> SimulationResult:
    """One agent app instance (offline model, ``behaviour``) exporting to ``otlp_url``, the traffic
    simulator against its chat API; returns once the app stopped (its spans exported)."""
    settings = traced_agent_settings(
        database_url, nats_url, topology, otlp_url, ingest_key, chat_offline=behaviour or OfflineBehaviour()
    )
    async with running(create_agent_app(settings)) as client:
        result = await simulate(client, conversations, seed=seed, items=ITEMS)
    assert result.errors == 0, result.error_messages
    assert result.conversations == conversations
    return result
