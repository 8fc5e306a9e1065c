"""The JSON-serialisable result of ``compare_runs`` (stored in ``comparisons.report``)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from shared.analysis.run_data import ItemKey
from shared.contracts.comparison_config import ComparisonConfig
from shared.contracts.gates import GateResult
from shared.contracts.metric_spec import MetricDirection, MetricSpec
from shared.stats import PairedComparison

MetricStatus = Literal[
    "regression", "improvement", "no_significant_change", "insufficient_data", "informational"
]


class MetricResult(BaseModel):
    """One metric's paired comparison and what it means against its threshold."""

    metric: str
    direction: MetricDirection = Field(
        description="From the metric's spec; informational: never a regression"
    )
    threshold: float | None = Field(
        description="Signed delta beyond which (in the bad direction) it regresses; None if informational"
    )
    spec: MetricSpec | None = Field(
        default=None, description="The metric's resolved spec this comparison used (None in older reports)"
    )
    comparison: PairedComparison = Field(description="Summaries, delta + CI, effect sizes, raw p-value")
    p_adjusted: float | None = Field(description="Holm-adjusted p-value within this metric's family")
    significant: bool = Field(description="p_adjusted < alpha")
    status: MetricStatus
    reason: str = Field(default="", description="Why this status, in words (threshold, test, p, interval)")


class BreakdownResult(BaseModel):
    """The metric family restricted to items whose metadata[key] == value."""

    key: str = Field(description="Metadata key, e.g. 'category'")
    value: str = Field(description="Metadata value (as a string)")
    n_pairs: int = Field(description="Matched pairs in this group")
    metrics: list[MetricResult]


class ErrorCounts(BaseModel):
    """Items with status 'error' in each whole run (matched or not)."""

    baseline: int
    candidate: int


class RunScoreDelta(BaseModel):
    """A run-level score: one value per run, so described, never tested."""

    name: str
    baseline: float | None
    candidate: float | None
    delta: float | None


class ComparisonReport(BaseModel):
    """Baseline vs candidate. ``report.model_dump(mode="json")`` is the JSON report."""

    schema_version: Literal[1] = 1
    baseline_id: str
    baseline_name: str
    candidate_id: str
    candidate_name: str
    config: ComparisonConfig = Field(description="The configuration the comparison ran with")
    n_pairs: int = Field(description="Items matched by (item_id, trial)")
    unmatched_baseline: list[ItemKey] = Field(description="Baseline items missing from the candidate")
    unmatched_candidate: list[ItemKey] = Field(description="Candidate items missing from the baseline")
    metrics_only_in_baseline: list[str]
    metrics_only_in_candidate: list[str]
    errors: ErrorCounts
    metrics: list[MetricResult] = Field(description="Overall family, Holm-corrected together")
    breakdowns: list[BreakdownResult] = Field(description="Per metadata value; one Holm family per key")
    run_scores: list[RunScoreDelta]
    regressions: list[str] = Field(description="Metrics with status 'regression'")
    improvements: list[str] = Field(description="Metrics with status 'improvement'")
    breakdown_regressions: list[str] = Field(description="'key=value:metric' entries that regressed")
    regression: bool = Field(description="An overall metric regressed (or a breakdown one, if asked)")
    gates: list[GateResult] = Field(default_factory=list, description="Absolute gates on the candidate")
    gates_passed: bool = Field(default=True, description="Every absolute gate met (True without gates)")
    spec_differences: dict[str, list[str]] = Field(
        default_factory=dict,
        description="metric -> how the baseline's spec of it differs from the candidate's (direction, "
        "criterion, threshold, evaluator version); such a metric's comparison may compare unlike things",
    )
    verdict: str = Field(description="One-line human summary")
