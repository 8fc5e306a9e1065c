from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest

from shared.analysis.stats import StatsInputError, bucketed_means

pytestmark = pytest.mark.unit

T0 = datetime(2025, 1, 1, 10, 0, tzinfo=UTC)


def test_hourly_buckets_known_answer() -> None:
    stamps = [T0, T0 + timedelta(minutes=10), T0 + timedelta(minutes=50), T0 + timedelta(hours=2, minutes=5)]
    buckets = bucketed_means(stamps, [1.0, 2.0, 3.0, 0.5], width=timedelta(hours=1))
    assert [b.start for b in buckets] == [T0, T0 + timedelta(hours=2)]  # empty hour omitted
    first, second = buckets
    assert first.n == 3
    assert first.mean == pytest.approx(2.0)
    assert first.sd == pytest.approx(1.0)
    half = 4.302653 * 1.0 / math.sqrt(3)  # t_{0.975, 2}
    assert first.ci_low == pytest.approx(2.0 - half, abs=1e-5)
    assert first.ci_high == pytest.approx(2.0 + half, abs=1e-5)
    assert (second.n, second.mean, second.sd, second.ci_low) == (1, 0.5, None, None)


def test_unsorted_input_missing_values_and_naive_utc() -> None:
    naive = T0.replace(tzinfo=None)
    stamps = [naive + timedelta(minutes=70), naive, naive + timedelta(minutes=5)]
    buckets = bucketed_means(stamps, [4.0, None, 6.0], width=timedelta(hours=1))
    assert [(b.start, b.n, b.mean) for b in buckets] == [(T0, 1, 6.0), (T0 + timedelta(hours=1), 1, 4.0)]


def test_origin_shifts_bucket_edges() -> None:
    stamps = [T0 + timedelta(minutes=20), T0 + timedelta(minutes=40)]
    origin = T0 + timedelta(minutes=30)
    buckets = bucketed_means(stamps, [1.0, 3.0], width=timedelta(hours=1), origin=origin)
    assert [b.start for b in buckets] == [T0 - timedelta(minutes=30), origin]


def test_empty_and_invalid_input() -> None:
    assert bucketed_means([], [], width=timedelta(minutes=5)) == []
    with pytest.raises(StatsInputError, match="width"):
        bucketed_means([T0], [1.0], width=timedelta(0))
    with pytest.raises(StatsInputError, match="equal length"):
        bucketed_means([T0], [1.0, 2.0], width=timedelta(minutes=5))
