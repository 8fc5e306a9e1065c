from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from services.coordinator.ui.views.online import auto_window, evaluator_charts
from yardstick.api.online import BucketMean, MetricSeries, OnlineMetrics

pytestmark = pytest.mark.unit

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


def test_the_auto_window_spans_the_traffic_in_about_two_dozen_buckets() -> None:
    window, bucket = auto_window(NOW - timedelta(minutes=2), NOW)
    assert window >= timedelta(minutes=2) and bucket == timedelta(seconds=5)  # floor of 5 s
    window, bucket = auto_window(NOW - timedelta(hours=6), NOW)
    assert 20 <= window / bucket <= 26
    assert auto_window(None, NOW) == (timedelta(hours=1), timedelta(minutes=5))


def bucket(minute: int, mean: float) -> BucketMean:
    return BucketMean(
        start=NOW + timedelta(minutes=minute), n=3, mean=mean, sd=0.1, ci_low=mean - 0.1, ci_high=mean + 0.1
    )


def test_lines_per_model_and_prompt_share_one_time_axis_with_gaps() -> None:
    metrics = OnlineMetrics(
        window_start=NOW,
        window_end=NOW + timedelta(minutes=30),
        bucket_seconds=300,
        series=[
            MetricSeries(
                evaluator="e",
                model="m",
                prompt_version="v1",
                n=6,
                mean=0.8,
                buckets=[bucket(0, 0.8), bucket(5, 0.8)],
            ),
            MetricSeries(
                evaluator="e", model="m", prompt_version="v2", n=3, mean=0.5, buckets=[bucket(10, 0.5)]
            ),
        ],
    )
    [chart] = evaluator_charts(metrics)
    assert chart.evaluator == "e" and chart.n == 9 and chart.lines == ["m@v1", "m@v2"]
    data = chart.data
    assert data["labels"] == ["12:00:00", "12:05:00", "12:10:00"]
    assert [s["mean"] for s in data["series"]] == [[0.8, 0.8, None], [None, None, 0.5]]
    assert data["series"][1]["low"] == [None, None, pytest.approx(0.4)]
    assert data["bounded"] is True
