"""One traffic turn of the old ``traffic.agent`` path in: decide, and for a sampled turn store + score it
in one transaction (``online_samples`` / ``online_scores``).

No service runs this any more: the drive-thru agent reports its turns as OpenTelemetry traces, which
the span consumer samples and scores. It stays while readers of ``online_samples`` remain (promotion
of a sampled turn, the review queues' online-traffic source, the online page's sample list), whose
tests seed turns with it."""

from __future__ import annotations

import asyncio
import collections
import logging
from collections.abc import Callable
from datetime import UTC, datetime

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.sampler.previous_responses import PreviousResponses
from services.sampler.project_configs import ProjectConfigs
from services.sampler.sample_store import store_and_score
from services.sampler.sampling import MinuteCap, decide
from shared.contracts.agent_messages import TrafficTurn
from shared.contracts.projects import DEFAULT_PROJECT
from shared.db.judge_verdicts import ProjectVerdicts
from shared.db.project_scope import scope_to_project
from shared.evaluators.judge_cache import judge_cache_in_use
from shared.evaluators.loading import process_registry
from shared.evaluators.registry import EvaluatorRegistry
from shared.metrics import SAMPLER_DECISIONS
from shared.online.sampling_config import SamplingSettings

log = logging.getLogger(__name__)

AGENT_APPLICATION = "agent"
"""The application the drive-thru agent's turns are counted under in the sampler's metrics."""


class TurnHandler:
    """Stateful per process: each project's cached config (re-read every ``refresh_s``), the cap and
    the LRU. Every turn is stored and scored in its own project (``TrafficTurn.project``); a turn for
    a project that does not exist is acknowledged and counted as ``unknown_project``, not retried."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        refresh_s: float = 2.0,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        *,
        registry: EvaluatorRegistry | None = None,
    ) -> None:
        self._sessions = sessions
        self.registry = registry or process_registry()
        self._clock = clock
        self._configs = ProjectConfigs(sessions, refresh_s)
        self.caps: collections.defaultdict[str, MinuteCap] = collections.defaultdict(MinuteCap)
        self.previous = PreviousResponses()
        self.outcomes: collections.Counter[str] = collections.Counter()
        self._settled = asyncio.Condition()

    async def config(self, project: str = DEFAULT_PROJECT) -> SamplingSettings | None:
        """``project``'s sampling config; None when there is no such project."""
        return await self._configs.config(project)

    def invalidate(self) -> None:
        """Force a re-read of every project's config on the next turn."""
        self._configs.invalidate()

    async def handle(self, turn: TrafficTurn) -> str:
        """``stored`` | ``duplicate`` | ``not_sampled`` | ``filtered`` | ``capped`` |
        ``unknown_project``. Raises on DB errors."""
        config = await self.config(turn.project)
        if config is None:
            log.warning("turn %s names project %r, which does not exist: dropped", turn.msg_id, turn.project)
            return await self._settle("unknown_project")
        decision = decide(turn, config, self.caps[turn.project], self._clock())
        SAMPLER_DECISIONS.labels(AGENT_APPLICATION, decision).inc()
        outcome: str = decision
        if decision == "sampled":
            async with self._sessions() as session:
                scope_to_project(session, turn.project)
                previous = await self.previous.lookup(
                    session, turn.conversation_id, turn.turn_index, turn.project
                )
                with judge_cache_in_use(ProjectVerdicts(self._sessions, turn.project)):
                    sample_id = await store_and_score(
                        session, self.registry, turn, config.evaluators, previous
                    )
                await session.commit()
            outcome = "stored" if sample_id is not None else "duplicate"
            log.debug("turn %s: %s", turn.msg_id, outcome)
        self.previous.remember(turn.conversation_id, turn.turn_index, turn.response, turn.project)
        return await self._settle(outcome)

    @property
    def capped(self) -> int:
        """Turns refused by a project's per-minute cap, all projects together."""
        return sum(cap.skipped for cap in self.caps.values())

    async def _settle(self, outcome: str) -> str:
        self.outcomes[outcome] += 1
        async with self._settled:
            self._settled.notify_all()
        return outcome

    async def wait_handled(self, count: int, outcome: str | None = None) -> None:
        """Return once ``count`` turns were handled (with ``outcome``, if given). Wrap in a timeout."""

        def reached() -> bool:
            done = self.outcomes[outcome] if outcome else sum(self.outcomes.values())
            return done >= count

        async with self._settled:
            await self._settled.wait_for(reached)
