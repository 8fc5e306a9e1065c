"""How many re-sends an LLM call has left and how long to wait before the next one: one rule for
both HTTP clients that call a model (``shared/llm/transport.py`` for structured calls, and
``shared/llm/retrying_client.py`` under ``ChatMistralAI``).

- A ``Retry-After`` (429, 503) is honoured as asked when it is at most ``max_retry_after_s``;
  a longer one is not: no re-send.
- Otherwise exponential backoff: ``backoff_s`` doubling per re-send, at most 8 s, ±20 % jitter so
  that workers do not retry in step.
- At most ``max_retries`` re-sends.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass

from shared.llm.config import LlmConfig

MAX_BACKOFF_S = 8.0


def backoff_s(config: LlmConfig, retry: int) -> float:
    """Wait before re-send number ``retry`` (0-based): ``backoff_s * 2**retry``, at most 8 s."""
    return float(min(MAX_BACKOFF_S, config.backoff_s * (2**retry)))


@dataclass
class RetryBudget:
    """Re-sends so far and time waited, and whether another is allowed."""

    config: LlmConfig
    retries: int = 0
    waited_s: float = 0.0

    def refusal(self, retry_after: float | None = None) -> str | None:
        """None when a re-send is allowed; else why not, as a note for the error message ("" when
        the re-sends are used up, which the caller's own reason already explains)."""
        if self.retries >= self.config.max_retries:
            return ""
        allowed = self.config.max_retry_after_s
        if retry_after is not None and retry_after > allowed:
            return (
                f"; asked to retry after {retry_after:g} s, more than the {allowed:g} s allowed "
                "(LLM_MAX_RETRY_AFTER_S)"
            )
        return None

    async def sleep(self, retry_after: float | None = None) -> None:
        """Wait before the next re-send (``retry_after`` when given, else the backoff) and count it."""
        pause = (
            backoff_s(self.config, self.retries) * random.uniform(0.8, 1.2)
            if retry_after is None
            else retry_after
        )
        self.retries += 1
        self.waited_s += pause
        await asyncio.sleep(pause)
