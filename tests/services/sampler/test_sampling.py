from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest

from services.sampler.sampling import MinuteCap, in_sample, sample_point

pytestmark = pytest.mark.unit

NOW = datetime(2026, 11, 22, 12, 0, 30, tzinfo=UTC)


@pytest.mark.parametrize("rate", [0.05, 0.2, 0.5])
def test_observed_rate_is_within_two_points_over_10000_conversations(rate: float) -> None:
    ids = [f"conv-{uuid.UUID(int=i)}" for i in range(10_000)]
    first = [in_sample(cid, rate) for cid in ids]
    second = [in_sample(cid, rate) for cid in ids]
    assert first == second
    assert abs(sum(first) / len(ids) - rate) <= 0.02


def test_sample_point_is_in_unit_interval_and_stable() -> None:
    points = [sample_point(str(i)) for i in range(1000)]
    assert all(0.0 <= p < 1.0 for p in points)
    assert sample_point("abc") == sample_point("abc")


def test_rate_edges() -> None:
    assert not in_sample("any", 0.0)
    assert in_sample("any", 1.0)


def test_cap_per_minute_refuses_and_counts_then_resets() -> None:
    cap = MinuteCap()
    assert [cap.take(3, NOW) for _ in range(5)] == [True] * 3 + [False] * 2
    assert cap.skipped == 2
    assert cap.take(3, NOW + timedelta(minutes=1))
    assert cap.take(None, NOW)  # no cap: every one is taken
