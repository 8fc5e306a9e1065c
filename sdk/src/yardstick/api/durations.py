"""Parse short durations such as ``30s``, ``5m``, ``1h``, ``7d``."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_PATTERN = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhd])\s*$")


class InvalidDuration(ValueError):
    """Not a duration like ``5m``."""


MAX_DURATION = timedelta(days=3660)
"""Ten years: longer windows than any deployment keeps samples for (and than timedelta holds, far out)."""


def parse_duration(text: str) -> timedelta:
    match = _PATTERN.match(text)
    if match is None or float(match.group(1)) <= 0:
        raise InvalidDuration(f"invalid duration {text!r}: use a positive number and s|m|h|d, e.g. 5m or 1h")
    seconds = float(match.group(1)) * _UNITS[match.group(2)]
    if seconds > MAX_DURATION.total_seconds():
        raise InvalidDuration(f"duration {text!r} is longer than {MAX_DURATION.days} days: use a shorter one")
    return timedelta(seconds=seconds)


def parse_moment(text: str, now: datetime) -> datetime:
    """``7d`` / ``12h`` (that long before ``now``) or an ISO 8601 time (UTC when it names no zone)."""
    try:
        return now - parse_duration(text)
    except InvalidDuration:
        pass
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise InvalidDuration(
            f"invalid time {text!r}: use a duration back from now (7d, 12h, 30m) or an ISO 8601 time "
            "(2026-11-20T08:00:00Z)"
        ) from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
