"""AIMD concurrency for one target inside one worker: additive increase on success, multiplicative
decrease on a throttle, between 1 and a ceiling (the worker's task slots). No I/O."""

from __future__ import annotations

import asyncio
import math
import time
from dataclasses import dataclass, field

DECREASE_FACTOR = 0.5
DECREASE_SPACING_S = 1.0
"""One decrease per throttling episode: the 429s of calls already in flight when the first came back
do not halve the limit again and again."""


@dataclass
class AdaptiveLimit:
    """Calls to one target running in this worker, and how many may run at once (``limit``).

    The limit starts at the ceiling, so a target that never throttles runs exactly as before. Each
    success adds ``1/limit`` (one more slot per window of successes); a throttle multiplies it by
    ``DECREASE_FACTOR``, at most once per ``DECREASE_SPACING_S``."""

    ceiling: int
    limit: float = 0.0
    in_use: int = 0
    _last_decrease: float = float("-inf")
    _waiting: int = 0
    _changed: asyncio.Condition = field(default_factory=asyncio.Condition)

    def __post_init__(self) -> None:
        self.ceiling = max(1, self.ceiling)
        self.limit = float(self.ceiling)

    @property
    def current(self) -> int:
        """Calls allowed at once now."""
        return max(1, min(self.ceiling, math.floor(self.limit)))

    async def acquire(self) -> None:
        if self.in_use < self.current:  # a free slot: taken without the condition (one event loop)
            self.in_use += 1
            return
        self._waiting += 1
        try:
            async with self._changed:
                await self._changed.wait_for(lambda: self.in_use < self.current)
                self.in_use += 1
        finally:
            self._waiting -= 1

    async def release(self) -> None:
        self.in_use -= 1
        if self._waiting:  # nobody waits: nobody to wake
            async with self._changed:
                self._changed.notify(max(0, self.current - self.in_use))

    async def succeeded(self) -> None:
        before = self.current
        self.limit = min(float(self.ceiling), self.limit + 1.0 / max(1.0, self.limit))
        if self.current > before:
            async with self._changed:
                self._changed.notify(self.current - before)

    def throttled(self, now: float | None = None) -> bool:
        """Halve the limit unless it was halved within ``DECREASE_SPACING_S``; True if it changed."""
        at = time.monotonic() if now is None else now
        if at - self._last_decrease < DECREASE_SPACING_S:
            return False
        self._last_decrease = at
        self.limit = max(1.0, self.limit * DECREASE_FACTOR)
        return True
