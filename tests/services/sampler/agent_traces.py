"""The drive-thru agent reporting its chat turns over OTLP to the real ingest service, and the real
sampler on the spans: what the agent's online tests share."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from nats.aio.client import Client as NatsClient
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.agent.http_app import create_app as create_agent_app
from services.agent.settings import AgentSettings
from services.cli.traffic_cmd import SimulationResult, load_menu_items, simulate
from services.sampler.project_configs import ProjectConfigs
from services.sampler.span_consumer import SpanConsumer
from services.sampler.trace_handler import TraceHandler
from shared.contracts.agent_messages import OfflineBehaviour
from shared.contracts.topology import Topology
from shared.evaluators.loading import process_registry
from shared.traces import AssemblyPolicy
from tests.services.agent.app_client import running
from tests.services.agent.conftest import offline_settings
from tests.services.ingest.harness import Ingest, ingest_settings, serve_ingest

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


@asynccontextmanager
async def tracing_sampler(
    nc: NatsClient, topology: Topology, sessions: Sessions
) -> AsyncIterator[TraceHandler]:
    """The sampler's span consumer on the test's ``traffic.spans``; yields its handler
    (``wait_handled`` tells when the traces are settled)."""
    handler = TraceHandler(sessions, ProjectConfigs(sessions, refresh_s=0.0), process_registry())
    consumer = SpanConsumer(
        nc, topology, handler, AssemblyPolicy(settle_s=0.3), fetch_timeout_s=0.2, tick_s=0.05
    )
    await consumer.start()
    try:
        yield handler
    finally:
        await consumer.stop()
