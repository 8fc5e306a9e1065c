"""The sampling config of a test's project."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from shared.contracts.projects import DEFAULT_PROJECT
from shared.online.sampling_config import SamplingSettings, save_config


async def set_rate(sessions: async_sessionmaker[AsyncSession], rate: float) -> None:
    async with sessions() as session:
        await save_config(session, DEFAULT_PROJECT, SamplingSettings(rate=rate))
        await session.commit()
