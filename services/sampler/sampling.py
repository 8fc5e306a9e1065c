"""What trace sampling is made of (``trace_sampling`` applies them): a deterministic hash of the
conversation (or trace) id, and a per-minute cap."""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Literal

Decision = Literal["sampled", "not_sampled", "filtered", "capped"]

_HASH_SPACE = float(2**64)


def sample_point(conversation_id: str) -> float:
    """``sha256(conversation_id)`` mapped to [0, 1): the same conversation always lands on the same point."""
    digest = hashlib.sha256(conversation_id.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / _HASH_SPACE


def in_sample(conversation_id: str, rate: float) -> bool:
    """True when the whole conversation is in a sample of ``rate`` (all its turns or none)."""
    return sample_point(conversation_id) < rate


class MinuteCap:
    """Counts sampled traces per wall-clock minute; refuses those beyond the cap and counts them."""

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
