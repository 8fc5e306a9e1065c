"""Assembled trace parts in (a tick's worth at once): their project, their application's sampling,
then store + score them all in one transaction (a late part of a stored trace is merged whatever the
sampling says).

Outcomes: ``stored`` | ``merged`` | ``duplicate`` | ``not_sampled`` | ``filtered`` | ``capped`` |
``unknown_project`` (a project that does not exist: counted, and the spans acknowledged, never
retried forever). Database errors are raised: the caller gives the spans back for redelivery.
"""

from __future__ import annotations

import asyncio
import collections
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.sampler.project_configs import ProjectConfigs
from services.sampler.sampling import MinuteCap
from services.sampler.trace_sampling import decide_trace
from services.sampler.trace_store import (
    NewTrace,
    TracePart,
    lock_traces,
    lookup_days,
    store_new,
    store_part,
    stored_trace,
    stored_traces,
)
from shared.evaluators.registry import EvaluatorRegistry
from shared.metrics import SAMPLER_DECISIONS
from shared.online.application_sampling import EffectiveSampling
from yardstick.api.evaluation import EvaluatorSpec
from yardstick.api.trace_record import TraceRecord

log = logging.getLogger(__name__)


@dataclass
class _Known:
    """A part of a trace of a known project, with its record and its application's sampling."""

    index: int
    part: TracePart
    record: TraceRecord
    app: EffectiveSampling

    @property
    def specs(self) -> list[EvaluatorSpec]:
        return self.app.evaluators


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
        return (await self.handle_many([part]))[0]

    async def handle_many(self, parts: Sequence[TracePart]) -> list[str]:
        """The parts in one transaction: those of traces not stored yet and sampled inserted
        together (:func:`store_new`), late parts of stored traces merged one by one. One outcome per
        part, in order. Raises on a database error: nothing of the parts is stored then."""
        outcomes: dict[int, str] = {}
        known: list[_Known] = []
        for i, part in enumerate(parts):
            config = await self._configs.config(part.project_id)
            if config is None:
                log.warning("trace %s names project %r, which does not exist", part.trace_id, part.project_id)
                outcomes[i] = "unknown_project"
                continue
            record = part.record()
            known.append(_Known(i, part, record, config.for_application(record.application)))
        if known:
            async with self._sessions() as session:
                outcomes |= await self._store(session, known)
                await session.commit()
        return [await self._settle(outcomes[i]) for i in range(len(parts))]

    async def _store(self, session: AsyncSession, known: list[_Known]) -> dict[int, str]:
        now = self._clock()
        await lock_traces(session, [(k.part.project_id, k.part.trace_id) for k in known])  # one order
        days = {k.index: lookup_days(k.part, now) for k in known}
        windows = [d for d in days.values() if d is not None]
        anywhere = [(k.part.project_id, k.part.trace_id) for k in known if days[k.index] is None]
        stored = await stored_traces(session, anywhere)
        if windows:  # one look-up over the chunk's days: a few partitions instead of every one
            keys = [(k.part.project_id, k.part.trace_id) for k in known if days[k.index] is not None]
            stored |= await stored_traces(
                session, keys, (min(d[0] for d in windows), max(d[1] for d in windows))
            )
        outcomes: dict[int, str] = {}
        fresh: list[_Known] = []
        later: list[_Known] = []
        for k in known:
            key = (k.part.project_id, k.part.trace_id)
            if key in stored:  # a late part of a stored trace is merged whatever the sampling says
                later.append(k)
                continue
            decision = decide_trace(k.record, k.app, self.caps[(key[0], k.record.application)], now)
            SAMPLER_DECISIONS.labels(k.record.application, decision).inc()
            if decision != "sampled":
                outcomes[k.index] = decision
                continue
            stored.add(key)  # a second part of it in this batch is merged after the first
            fresh.append(k)
        new = [NewTrace(k.part, k.record, k.specs) for k in fresh]
        for k, inserted in zip(fresh, await store_new(session, self._registry, new), strict=True):
            if inserted:
                outcomes[k.index] = "stored"
                log.debug("trace %s (%s): stored", k.part.trace_id, k.record.application)
            else:  # another sampler inserted it meanwhile
                later.append(k)
        for k in later:
            part, within = k.part, days[k.index]
            existing = await stored_trace(session, part.project_id, part.trace_id, within)
            outcome = await store_part(session, self._registry, part, k.specs, existing, k.record, within)
            outcomes[k.index] = outcome
            log.debug("trace %s (%s): %s", part.trace_id, k.record.application, outcome)
        return outcomes

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
