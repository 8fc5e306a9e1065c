"""One traffic turn in: decide, and for a sampled turn store + score it in one transaction."""

from __future__ import annotations

import asyncio
import collections
import logging
import time
from collections.abc import Callable
from datetime import UTC, datetime

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.sampler.previous_responses import PreviousResponses
from services.sampler.sample_store import store_and_score
from services.sampler.sampling import MinuteCap, decide
from shared.contracts.agent_messages import TrafficTurn
from shared.evaluators.loading import process_registry
from shared.evaluators.registry import EvaluatorRegistry
from shared.online.sampling_config import SamplingSettings, load_config

log = logging.getLogger(__name__)


class TurnHandler:
    """Stateful per process: the cached config (re-read every ``refresh_s``), the cap and the LRU."""

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
        self._refresh_s = refresh_s
        self._clock = clock
        self._config: SamplingSettings | None = None
        self._loaded_at = 0.0
        self.cap = MinuteCap()
        self.previous = PreviousResponses()
        self.outcomes: collections.Counter[str] = collections.Counter()
        self._settled = asyncio.Condition()

    async def config(self) -> SamplingSettings:
        now = time.monotonic()
        if self._config is None or now - self._loaded_at >= self._refresh_s:
            async with self._sessions() as session:
                self._config = await load_config(session)
            self._loaded_at = now
        return self._config

    def invalidate(self) -> None:
        """Force a re-read of the config on the next turn."""
        self._config = None

    async def handle(self, turn: TrafficTurn) -> str:
        """``stored`` | ``duplicate`` | ``not_sampled`` | ``filtered`` | ``capped``. Raises on DB errors."""
        config = await self.config()
        decision = decide(turn, config, self.cap, self._clock())
        outcome: str = decision
        if decision == "sampled":
            async with self._sessions() as session:
                previous = await self.previous.lookup(session, turn.conversation_id, turn.turn_index)
                sample_id = await store_and_score(session, self.registry, turn, config.evaluators, previous)
                await session.commit()
            outcome = "stored" if sample_id is not None else "duplicate"
            log.debug("turn %s: %s", turn.msg_id, outcome)
        self.previous.remember(turn.conversation_id, turn.turn_index, turn.response)
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
