"""The online page's charts: per evaluator, one line per model@prompt with its 95% interval band."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from pydantic import BaseModel

from yardstick.api.online import MetricSeries, OnlineMetrics

WINDOWS = {"15m": "1m", "1h": "5m", "6h": "15m", "24h": "1h", "7d": "6h"}
"""Window shown -> bucket width (about 12-30 points per line)."""


AUTO_LOOKBACK = timedelta(days=7)
AUTO_POINTS = 24


def _line_label(series: MetricSeries) -> str:
    """A chart line: ``application · model`` for traces, ``model@prompt`` for the agent's turns."""
    if series.application:
        return f"{series.application} · {series.model}"
    return f"{series.model}@{series.prompt_version}"


def auto_window(earliest: datetime | None, now: datetime) -> tuple[timedelta, timedelta]:
    """The window from the earliest score of the last week to now, in about 24 buckets (at least
    5 s each), so a burst of traffic minutes ago draws as a line rather than one point."""
    if earliest is None:
        return timedelta(hours=1), timedelta(minutes=5)
    span = max(now - earliest, timedelta(minutes=1)) * 1.05
    bucket = max(span / AUTO_POINTS, timedelta(seconds=5))
    return span, timedelta(seconds=round(bucket.total_seconds()))


class EvaluatorChart(BaseModel):
    evaluator: str
    n: int
    lines: list[str]
    data: dict[str, Any]


def _label(when: datetime, window: timedelta) -> str:
    if window > timedelta(hours=12):
        return when.strftime("%m-%d %H:%M")
    return when.strftime("%H:%M" if window > timedelta(hours=1) else "%H:%M:%S")


def evaluator_charts(metrics: OnlineMetrics) -> list[EvaluatorChart]:
    window = metrics.window_end - metrics.window_start
    by_evaluator: dict[str, list[Any]] = {}
    for series in metrics.series:
        by_evaluator.setdefault(series.evaluator, []).append(series)
    charts = []
    for evaluator, series_list in sorted(by_evaluator.items()):
        starts = sorted({b.start for s in series_list for b in s.buckets})
        lines = []
        bounded = True
        for s in series_list:
            at = {b.start: b for b in s.buckets}
            means = [at[t].mean if t in at else None for t in starts]
            bounded = bounded and all(m is None or 0.0 <= m <= 1.0 for m in means)
            lines.append(
                {
                    "label": _line_label(s),
                    "mean": means,
                    "low": [at[t].ci_low if t in at else None for t in starts],
                    "high": [at[t].ci_high if t in at else None for t in starts],
                }
            )
        charts.append(
            EvaluatorChart(
                evaluator=evaluator,
                n=sum(s.n for s in series_list),
                lines=[line["label"] for line in lines],
                data={
                    "kind": "series",
                    "labels": [_label(t, window) for t in starts],
                    "series": lines,
                    "bounded": bounded,
                },
            )
        )
    return charts
