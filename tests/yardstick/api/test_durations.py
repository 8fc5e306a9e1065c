from __future__ import annotations

from datetime import timedelta

import pytest

from yardstick.api.durations import InvalidDuration, parse_duration

pytestmark = pytest.mark.unit


def test_durations() -> None:
    assert parse_duration("5m") == timedelta(minutes=5)
    assert parse_duration("1h") == timedelta(hours=1)
    assert parse_duration("1.5d") == timedelta(hours=36)
    for bad in ("", "5", "0m", "-1h", "5w"):
        with pytest.raises(InvalidDuration, match="invalid duration"):
            parse_duration(bad)
