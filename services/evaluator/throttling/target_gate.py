"""Every target call of a worker goes through its :class:`TargetGate`, which keeps the provider's
limits: it waits out the target's shared pause, takes a slot of the target's adaptive concurrency,
waits for the target's shared rate schedule and token budget (charged after each call with the
tokens it reported; calls in flight when the budget runs out may overrun it by what they spend),
and on a throttle (``TargetThrottled``: 429, or 503 with ``Retry-After``)
pauses the target for every worker, halves the concurrency and tries again. The judges' requests to
their LLM providers go through the same gate (:meth:`TargetGate.call_provider`, installed for each
task by the task processor), keyed by the provider's identity.

A throttled call is retried **inside the same delivery**: the task is not nacked, so JetStream's
``num_delivered`` (capped by the consumer's ``max_deliver``) never counts a throttle, and a task may
be throttled any number of times without becoming an error. The delivery's lease is kept by the
task processor's in-progress acks while it waits. Only ``throttle_max_wait_s`` bounds the total
wait, after which the item is an error saying so. A real failure (5xx without ``Retry-After``, a
timeout, a refused connection) is not a throttle: it is nacked with backoff and counted as before.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from services.evaluator.errors import ThrottledTooLong
from services.evaluator.targets.base import TargetOutput
from services.evaluator.throttling.adaptive_limit import AdaptiveLimit
from services.evaluator.throttling.board import PauseNotice, ThrottleBoard
from services.evaluator.throttling.target_identity import identity_key, throttle_key
from shared.llm.provider_gate import ProviderThrottled
from shared.metrics import TARGET_CONCURRENCY, TARGET_THROTTLES
from yardstick.api.eval_messages import AgentTarget, EvalTask, HttpTarget

T = TypeVar("T")

DEFAULT_PAUSE_S = 1.0
"""Pause after a 429 that names no ``Retry-After``, doubled on each repeat of the same task."""
MAX_DEFAULT_PAUSE_S = 30.0
LATE_START_S = 0.05
"""A call of a rate-limited target starts at most this long after its reserved start, so that the
requests in any one second stay under ``requests * (1 + LATE_START_S) + 1`` per second."""


@dataclass
class ThrottleTally:
    """What one delivery met at its target's gate."""

    throttled: int = 0
    waited_s: float = 0.0
    concurrency: int | None = None


class TargetGate:
    """One per worker process. A target's adaptive concurrency ranges from 1 to ``ceiling`` (the
    worker's task slots): each experiment's own concurrency is already kept by the coordinator, and a
    target shared by several experiments must not be held to one of theirs. What is reported is
    the lower of the two."""

    def __init__(self, board: ThrottleBoard, ceiling: int, max_wait_s: float) -> None:
        self._board = board
        self._ceiling = ceiling
        self._max_wait_s = max_wait_s
        self._limits: dict[str, AdaptiveLimit] = {}
        board.on_pause(self._paused_elsewhere)

    def concurrency(self, key: str) -> int | None:
        limit = self._limits.get(key)
        return None if limit is None else limit.current

    def _limit(self, key: str) -> AdaptiveLimit:
        limit = self._limits.get(key)
        if limit is None:
            limit = self._limits[key] = AdaptiveLimit(self._ceiling)
            TARGET_CONCURRENCY.labels(key).set(limit.current)
        return limit

    def _paused_elsewhere(self, key: str, notice: PauseNotice) -> None:
        limit = self._limits.get(key)
        if limit is not None:
            limit.throttled()
            TARGET_CONCURRENCY.labels(key).set(limit.current)

    async def call(
        self, task: EvalTask, attempt: Callable[[], Awaitable[TargetOutput]], tally: ThrottleTally
    ) -> TargetOutput:
        """``attempt()`` under the target's limits, again after each throttle; raises
        ``ThrottledTooLong`` once the waits add up to more than ``max_wait_s``."""
        key = throttle_key(task.target)
        rate = task.target.rate_limit if isinstance(task.target, HttpTarget | AgentTarget) else None

        async def within_rate() -> TargetOutput:
            if rate is not None and rate.tokens_per_minute is not None:
                await self._token_turn(key)
            if rate is not None and (interval_s := rate.interval_s) is not None:
                await self._rate_turn(key, interval_s)
                while await self._wait_pause(key, tally):  # paused meanwhile: a new turn after it
                    await self._rate_turn(key, interval_s)
            output = await attempt()
            if rate is not None and rate.tokens_per_minute is not None and output.usage is not None:
                spent = output.usage.total_tokens or output.usage.input_tokens + output.usage.output_tokens
                await self._board.spend_tokens(key, spent, rate.tokens_per_minute)
            return output

        return await self._through(
            key, task.target.kind, within_rate, tally, task.concurrency or self._ceiling
        )

    def for_judges(self, tally: ThrottleTally) -> JudgeGate:
        """The gate the judges of one task go through, counting their throttles in ``tally``."""
        return JudgeGate(self, tally)

    async def call_provider(
        self, provider: str, attempt: Callable[[], Awaitable[T]], tally: ThrottleTally
    ) -> T:
        """One request of a judge to its LLM provider (``shared/llm/provider_gate.py``): the same
        shared pause and adaptive concurrency as a target's, keyed by the provider's identity."""
        return await self._through(identity_key(provider), "llm", attempt, tally, None)

    async def _through(
        self,
        key: str,
        kind: str,
        attempt: Callable[[], Awaitable[T]],
        tally: ThrottleTally,
        experiment_c: int | None,
    ) -> T:
        """``attempt()`` after the pause, in a slot, again after each throttle; ``experiment_c``
        (None for a judge's provider) caps the concurrency reported in ``tally``."""
        limit = self._limit(key)
        while True:
            await self._wait_pause(key, tally)
            await limit.acquire()
            try:
                output = await attempt()
            except ProviderThrottled as exc:  # TargetThrottled, or a judge's provider
                tally.throttled += 1
                limit.throttled()
                TARGET_THROTTLES.labels(kind, str(exc.status)).inc()
                pause_s = exc.retry_after_s
                if pause_s is None:
                    pause_s = min(MAX_DEFAULT_PAUSE_S, DEFAULT_PAUSE_S * 2.0 ** (tally.throttled - 1))
                await self._board.pause(key, pause_s, exc.status)
                continue
            finally:
                await limit.release()
                if experiment_c is not None:
                    tally.concurrency = min(limit.current, experiment_c)
            await limit.succeeded()
            TARGET_CONCURRENCY.labels(key).set(limit.current)
            if experiment_c is not None:
                tally.concurrency = min(limit.current, experiment_c)
            return output

    async def _rate_turn(self, key: str, interval_s: float) -> None:
        """Wait for a start reserved on the target's shared schedule. A start missed by more than
        ``LATE_START_S`` (this process was busy) is given up for a new one: late starts bunched
        together would break the rate in the window they land in. Not counted as throttled waiting:
        the limit is the user's own."""
        while True:
            start = await self._board.reserve_start(key, interval_s)
            await asyncio.sleep(max(0.0, start - time.time()))
            if time.time() - start <= LATE_START_S:
                return

    async def _token_turn(self, key: str) -> None:
        """Wait until the target is out of token debt (its shared token schedule's next start).
        Not counted as throttled waiting: the limit is the user's own."""
        while True:  # read again after each wait: other calls may have added debt meanwhile
            left = await self._board.token_debt_until(key) - time.time()
            if left <= 0:
                return
            await asyncio.sleep(left)

    async def _wait_pause(self, key: str, tally: ThrottleTally) -> bool:
        """Wait until the target's pause is over; True if there was one."""
        waited = False
        while (left := self._board.paused_for(key)) > 0:  # a pause may be extended while waiting
            waited = True
            if tally.waited_s + left > self._max_wait_s:
                raise ThrottledTooLong(
                    f"the target asked to wait {tally.waited_s + left:.0f}s in all (throttled "
                    f"{tally.throttled} times), more than EVAL_THROTTLE_MAX_WAIT_S={self._max_wait_s:g}s"
                )
            tally.waited_s += left
            await asyncio.sleep(left)
        return waited


@dataclass(frozen=True)
class JudgeGate:
    """A task's view of its worker's gate for its judges (a :class:`~shared.llm.provider_gate.
    ProviderGate`): their throttles add to the task's ``throttled`` and to its waiting budget."""

    gate: TargetGate
    tally: ThrottleTally

    async def call_provider(self, provider: str, attempt: Callable[[], Awaitable[T]]) -> T:
        return await self.gate.call_provider(provider, attempt, self.tally)
