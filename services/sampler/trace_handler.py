"""One assembled trace part in: its project, its application's sampling, then store + score it in
one transaction (a late part of a stored trace is merged whatever the sampling says).

Outcomes: ``stored`` | ``merged`` | ``duplicate`` | ``not_sampled`` | ``filtered`` | ``capped`` |
``unknown_project`` (a project that does not exist: counted, and the spans acknowledged, never
retried forever). Database errors are raised: the caller gives the spans back for redelivery.
"""

from __future__ import annotations

import asyncio
import collections
import logging
from collections.abc import Callable
from datetime import UTC, datetime

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.sampler.project_configs import ProjectConfigs
from services.sampler.sampling import MinuteCap
from services.sampler.trace_sampling import decide_trace
from services.sampler.trace_store import TracePart, store_part, stored_trace
from shared.evaluators.registry import EvaluatorRegistry
from shared.metrics import SAMPLER_DECISIONS

log = logging.getLogger(__name__)


class TraceHandler:
    """Reads each project's config through ``configs``; keeps a cap per (project, application)."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        configs: ProjectConfigs,
        registry: EvaluatorRegistry,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._sessions = sessions
        self._configs = configs
        self._registry = registry
        self._clock = clock
        self.caps: collections.defaultdict[tuple[str, str], MinuteCap] = collections.defaultdict(MinuteCap)
        self.outcomes: collections.Counter[str] = collections.Counter()
        self._settled = asyncio.Condition()

    async def handle(self, part: TracePart) -> str:
        config = await self._configs.config(part.project_id)
        if config is None:
            log.warning("trace %s names project %r, which does not exist", part.trace_id, part.project_id)
            return await self._settle("unknown_project")
        record = part.record()
        app = config.for_application(record.application)
        async with self._sessions() as session:
            existing = await stored_trace(session, part.project_id, part.trace_id)
            if existing is None:
                cap = self.caps[(part.project_id, record.application)]
                decision = decide_trace(record, app, cap, self._clock())
                SAMPLER_DECISIONS.labels(record.application, decision).inc()
                if decision != "sampled":
                    return await self._settle(decision)
            outcome = await store_part(session, self._registry, part, app.evaluators, existing, record)
            await session.commit()
        log.debug("trace %s (%s): %s", part.trace_id, record.application, outcome)
        return await self._settle(outcome)

    @property
    def capped(self) -> int:
        return sum(cap.skipped for cap in self.caps.values())

    async def _settle(self, outcome: str) -> str:
        self.outcomes[outcome] += 1
        async with self._settled:
            self._settled.notify_all()
        return outcome

    @property
    def handled(self) -> int:
        return sum(self.outcomes.values())

    async def wait_handled(self, count: int, outcome: str | None = None) -> None:
        """Return once ``count`` parts were handled (with ``outcome``, if given). Wrap in a timeout."""

        def reached() -> bool:
            done = self.outcomes[outcome] if outcome else sum(self.outcomes.values())
            return done >= count

        async with self._settled:
            await self._settled.wait_for(reached)
