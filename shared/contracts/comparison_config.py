"""How to compare two runs: the request's knobs, stored with each comparison.

What each metric means (direction, regression threshold) is its resolved spec
(``shared.analysis.metric_specs``); ``thresholds`` and ``lower_is_better`` here override it for
one comparison.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from shared.contracts.gates import Gate


class ComparisonConfig(BaseModel):
    """How to compare two runs."""

    metrics: list[str] | None = Field(
        default=None, description="Metrics to compare; None = every metric scored in both runs"
    )
    thresholds: dict[str, float] = Field(
        default_factory=dict,
        description="Signed delta thresholds (bad direction) overriding the metrics' specs for this "
        "comparison",
    )
    lower_is_better: list[str] = Field(
        default_factory=list,
        description="Metrics to treat as lower-is-better in this comparison, whatever their spec says",
    )
    alpha: float = Field(default=0.05, gt=0.0, lt=1.0, description="Family-wise significance level")
    confidence: float = Field(default=0.95, gt=0.0, lt=1.0, description="Level of the reported CIs")
    resamples: int = Field(default=10_000, ge=100, description="Bootstrap resamples B")
    seed: int = Field(default=0, description="numpy.random.default_rng seed")
    breakdown_keys: list[str] = Field(default_factory=lambda: ["category", "difficulty", "query_type"])
    include_latency: bool = Field(default=True, description="Compare per-item latency_ms")
    include_error_rate: bool = Field(default=True, description="Compare the per-pair error indicator")
    fail_on_breakdown: bool = Field(default=False, description="A breakdown regression sets regression")
    gates: list[Gate] = Field(
        default_factory=list, description="Absolute gates on the candidate's means, e.g. 'mrr>=0.8'"
    )
    gate: Literal["point", "ci"] = Field(
        default="point",
        description="point: a significant change whose delta passes the threshold counts; ci: only when "
        "the whole interval of the delta lies beyond it (fewer false alarms at the threshold, less power)",
    )
