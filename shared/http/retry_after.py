"""The ``Retry-After`` header (RFC 9110 §10.2.3), and what counts as a throttle, decided once for
every caller that honours them: the LLM transport (``shared/llm/transport.py``) and the eval
workers' ``http`` targets."""

from __future__ import annotations

import email.utils
import time

RETRY_AFTER_STATUSES = frozenset({429, 503})
"""Statuses whose ``Retry-After`` asks the caller to wait and send again."""


def retry_after_s(header: str | None, now: float | None = None) -> float | None:
    """Seconds to wait per a ``Retry-After`` header (delta seconds or an HTTP date), None if absent."""
    if not header:
        return None
    value = header.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def is_throttle(status: int, retry_after_s: float | None) -> bool:
    """A rate limit rather than a failure: 429, or 503 that says when to come back (a 503 without
    ``Retry-After`` is an outage)."""
    return status == 429 or (status == 503 and retry_after_s is not None)
