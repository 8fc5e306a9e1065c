"""Metric directions, default regression thresholds and the comparison config."""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Literal

from pydantic import BaseModel, Field

from shared.contracts.gates import Gate

LATENCY_METRIC = "latency_ms"
ERROR_RATE_METRIC = "error_rate"
LOWER_IS_BETTER = frozenset({"hallucination_rate", ERROR_RATE_METRIC, LATENCY_METRIC})
DEFAULT_THRESHOLDS: dict[str, float] = {
    "mrr": -0.05,
    "faithfulness": -0.03,
    "citation_precision": -0.03,
    "citation_recall": -0.05,
    "answer_relevancy": -0.05,
    "hallucination_rate": 0.02,
    "order_correctness": -0.05,
    "tool_call_accuracy": -0.05,
    "no_hallucinated_items": -0.05,
    ERROR_RATE_METRIC: 0.02,
    LATENCY_METRIC: 100.0,
}
_AT_K = re.compile(r"^(recall|precision|ndcg)@\d+$")
_UNKNOWN_HIGHER, _UNKNOWN_LOWER, _UNKNOWN_MS = -0.05, 0.05, 100.0

Direction = Literal["higher_is_better", "lower_is_better"]


class ComparisonError(ValueError):
    """The two runs or the comparison config cannot be compared as asked."""


def is_lower_better(metric: str, extra: Collection[str] = ()) -> bool:
    """Latency-like (``*_ms``), ``hallucination_rate``, ``error_rate`` and ``extra`` are lower-is-better."""
    return metric in LOWER_IS_BETTER or metric.endswith("_ms") or metric in extra


def default_threshold(metric: str, lower_better: bool) -> float:
    if metric in DEFAULT_THRESHOLDS:
        return DEFAULT_THRESHOLDS[metric]
    if _AT_K.match(metric):
        return -0.05
    if metric.endswith("_ms"):
        return _UNKNOWN_MS
    return _UNKNOWN_LOWER if lower_better else _UNKNOWN_HIGHER


class ComparisonConfig(BaseModel):
    """How to compare two runs."""

    metrics: list[str] | None = Field(
        default=None, description="Metrics to compare; None = every metric scored in both runs"
    )
    thresholds: dict[str, float] = Field(
        default_factory=dict, description="Signed delta thresholds (bad direction) overriding defaults"
    )
    lower_is_better: list[str] = Field(default_factory=list, description="Extra lower-is-better metrics")
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
