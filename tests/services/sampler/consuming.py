"""The sampling config of a test's project, and the sampler's span consumer on the test's stream."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from nats.aio.client import Client as NatsClient
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.sampler.project_configs import ProjectConfigs
from services.sampler.span_consumer import SpanConsumer
from services.sampler.trace_handler import TraceHandler
from shared.evaluators.loading import process_registry
from shared.online.sampling_config import SamplingSettings, save_config
from shared.traces import AssemblyPolicy
from yardstick.api.projects import DEFAULT_PROJECT
from yardstick.api.topology import Topology

Sessions = async_sessionmaker[AsyncSession]


async def set_rate(sessions: async_sessionmaker[AsyncSession], rate: float) -> None:
    async with sessions() as session:
        await save_config(session, DEFAULT_PROJECT, SamplingSettings(rate=rate))
        await session.commit()


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
