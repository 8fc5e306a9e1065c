"""Time-bucketed means with 95% CIs of the sampled traces' online scores, per evaluator, application
and model."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from shared.analysis import bucketed_means, summarize
from shared.db.trace_models import TraceScore
from yardstick.api.online import MetricSeries, OnlineMetrics

TRACE_PROMPT_VERSION = "-"
"""Traces have no prompt version: their series (and drift alerts) carry this one."""


async def online_metrics(
    session: AsyncSession, *, window: timedelta, bucket: timedelta, now: datetime
) -> OnlineMetrics:
    start = now - window
    t = TraceScore
    traces = select(t.name, t.model, t.application, t.trace_at, t.value).where(
        t.trace_at >= start, t.trace_at < now, t.value.is_not(None)
    )
    Key = tuple[str, str, str]  # evaluator, model, application
    groups: dict[Key, tuple[list[datetime], list[float]]] = defaultdict(lambda: ([], []))
    for name, model, application, trace_at, value in (await session.execute(traces)).all():
        times, values = groups[(name, model, application)]
        times.append(trace_at)
        values.append(float(value or 0.0))  # NULLs are filtered in SQL
    series: list[MetricSeries] = []
    for (name, model, application), (times, values) in sorted(groups.items()):
        overall = summarize(values)
        series.append(
            MetricSeries(
                evaluator=name,
                model=model,
                prompt_version=TRACE_PROMPT_VERSION,
                application=application,
                n=overall.n,
                mean=overall.mean,
                ci_low=overall.ci_low,
                ci_high=overall.ci_high,
                buckets=bucketed_means(times, values, width=bucket, origin=start),
            )
        )
    return OnlineMetrics(
        window_start=start, window_end=now, bucket_seconds=bucket.total_seconds(), series=series
    )
