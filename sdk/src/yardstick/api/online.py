"""HTTP bodies of ``/online``: the online scores' time-bucketed means with 95% CIs, and drift alerts."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field


class BucketMean(BaseModel, frozen=True):
    """One non-empty bucket [start, start + width)."""

    start: datetime = Field(description="Bucket start (UTC)")
    n: int = Field(description="Finite values in the bucket")
    mean: float
    sd: float | None = Field(default=None, description="Sample SD (ddof=1); None if n < 2")
    ci_low: float | None = Field(default=None, description="t-interval of the mean; None if n < 2")
    ci_high: float | None = None


class MetricSeries(BaseModel):
    evaluator: str
    model: str
    prompt_version: str
    application: str | None = Field(default=None, description="The traces' application")
    n: int = Field(description="Scores with a value in the window")
    mean: float | None = Field(description="Mean over the whole window")
    ci_low: float | None = None
    ci_high: float | None = None
    buckets: list[BucketMean]


class OnlineMetrics(BaseModel):
    window_start: datetime
    window_end: datetime
    bucket_seconds: float
    series: list[MetricSeries]


class DriftAlertOut(BaseModel):
    id: str
    evaluator: str
    model: str
    prompt_version: str
    application: str | None = Field(
        default=None,
        description="The traces' application (None: an alert on the agent's turns from before traces)",
    )
    reference: str = Field(description="'offline' or 'previous_window'")
    detail: dict[str, Any] = Field(description="Means, delta, p-value, window, test")
    created_at: datetime
