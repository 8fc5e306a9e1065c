"""Each project's sampling config as the sampler applies it: read from Postgres, cached per process and
re-read every ``refresh_s`` (a config saved through the API reaches every sampler within that time)."""

from __future__ import annotations

import time

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from shared.db.models import Project
from shared.online.sampling_config import SamplingSettings, load_config
from yardstick.api.projects import DEFAULT_PROJECT


class ProjectConfigs:
    def __init__(self, sessions: async_sessionmaker[AsyncSession], refresh_s: float = 2.0) -> None:
        self._sessions = sessions
        self._refresh_s = refresh_s
        self._configs: dict[str, tuple[float, SamplingSettings | None]] = {}

    async def config(self, project: str = DEFAULT_PROJECT) -> SamplingSettings | None:
        """``project``'s sampling config; None when there is no such project."""
        now = time.monotonic()
        cached = self._configs.get(project)
        if cached is None or now - cached[0] >= self._refresh_s:
            async with self._sessions() as session:
                exists = await session.get(Project, project) is not None
                config = await load_config(session, project) if exists else None
            cached = self._configs[project] = (now, config)
        return cached[1]

    def invalidate(self) -> None:
        """Force a re-read of every project's config on the next use."""
        self._configs.clear()
