"""The real sampler consumer on a test's stream, as a context manager."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from nats.aio.client import Client as NatsClient
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.sampler.consumer import SamplerConsumer
from services.sampler.turn_handler import TurnHandler
from shared.contracts.projects import DEFAULT_PROJECT
from shared.contracts.topology import Topology
from shared.online.sampling_config import SamplingSettings, save_config


async def set_rate(sessions: async_sessionmaker[AsyncSession], rate: float) -> None:
    async with sessions() as session:
        await save_config(session, DEFAULT_PROJECT, SamplingSettings(rate=rate))
        await session.commit()


@asynccontextmanager
async def consuming(
    nc: NatsClient, topology: Topology, sessions: async_sessionmaker[AsyncSession], batch: int = 50
) -> AsyncIterator[TurnHandler]:
    """A ``SamplerConsumer`` fetching ``topology``'s traffic until the block ends; yields its handler
    (``wait_handled`` tells when the turns the test published are settled)."""
    handler = TurnHandler(sessions)
    consumer = SamplerConsumer(nc, topology, handler, batch=batch, fetch_timeout_s=0.2)
    await consumer.start()
    try:
        yield handler
    finally:
        await consumer.stop()
