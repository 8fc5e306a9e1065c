"""Which turns are sampled: a deterministic hash of the conversation id, filters, a per-minute cap."""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Literal

from shared.contracts.agent_messages import TrafficTurn
from shared.online.sampling_config import SamplingFilters, SamplingSettings

Decision = Literal["sampled", "not_sampled", "filtered", "capped"]

_HASH_SPACE = float(2**64)


def sample_point(conversation_id: str) -> float:
    """``sha256(conversation_id)`` mapped to [0, 1): the same conversation always lands on the same point."""
    digest = hashlib.sha256(conversation_id.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / _HASH_SPACE


def in_sample(conversation_id: str, rate: float) -> bool:
    """True when the whole conversation is in a sample of ``rate`` (all its turns or none)."""
    return sample_point(conversation_id) < rate


def matches_filters(turn: TrafficTurn, filters: SamplingFilters) -> bool:
    if filters.model is not None and turn.model != filters.model:
        return False
    if filters.prompt_version is not None and turn.prompt_version != filters.prompt_version:
        return False
    if filters.finalized is not None and turn.finalized != filters.finalized:
        return False
    return all(turn.metadata.get(key) == value for key, value in filters.metadata.items())


class MinuteCap:
    """Counts sampled turns per wall-clock minute; refuses those beyond the cap and counts them."""

    def __init__(self) -> None:
        self._minute: int | None = None
        self._taken = 0
        self.skipped = 0

    def take(self, cap: int | None, now: datetime) -> bool:
        minute = int(now.timestamp() // 60)
        if minute != self._minute:
            self._minute, self._taken = minute, 0
        if cap is not None and self._taken >= cap:
            self.skipped += 1
            return False
        self._taken += 1
        return True


def decide(turn: TrafficTurn, config: SamplingSettings, cap: MinuteCap, now: datetime) -> Decision:
    """Filters first, then the hash, then the cap (so the cap only counts turns that would be sampled)."""
    if not matches_filters(turn, config.filters):
        return "filtered"
    if not in_sample(turn.conversation_id, config.rate):
        return "not_sampled"
    if not cap.take(config.cap_per_minute, now):
        return "capped"
    return "sampled"
