"""What the coordinator stores in ``experiments.aggregates``: one run's per-metric summaries,
breakdowns, pass rate, latency and tokens (computed by ``shared.analysis.aggregates``). Pure
models: a stored run loads without the statistics stack."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from yardstick.api.evaluation import Evaluation
from yardstick.api.gates import GateResult
from yardstick.api.metric_spec import MetricSpec
from yardstick.api.pass_criteria import PassCriterion
from yardstick.api.spend import Spend


class MetricAggregate(BaseModel):
    """One evaluator over the ok items."""

    mean: float | None
    median: float | None
    p95: float | None
    sd: float | None = Field(description="Sample SD (ddof=1)")
    ci_low: float | None = Field(description="95% interval of the mean (lower), inside the metric's range")
    ci_high: float | None = Field(description="95% interval of the mean (upper)")
    ci_method: str = Field(
        default="t",
        description="wilson (0/1 scores), bootstrap (scores in [0, 1]; t_clipped beyond 2,000 values) "
        "or t (unbounded)",
    )
    count: int = Field(description="Ok items with a value")
    none_count: int = Field(description="Ok items where the score was None or missing")


class GroupMetric(BaseModel):
    mean: float | None
    count: int
    none_count: int


class BreakdownGroup(BaseModel):
    """Items sharing one metadata value."""

    count: int = Field(description="Items (ok + error)")
    passed: int
    pass_rate: float
    error_count: int
    metrics: dict[str, GroupMetric]


class LatencyStats(BaseModel):
    count: int = Field(description="Ok items with a latency")
    mean: float | None = None
    p50: float | None = None
    p95: float | None = None
    p99: float | None = None


class TokenTotals(BaseModel):
    items_reporting: int = Field(description="Items whose target reported usage")
    input_tokens: int
    output_tokens: int
    total_tokens: int


class RunWarning(BaseModel):
    """Something that makes the run's numbers untrustworthy, in words."""

    kind: Literal["measured_nothing", "error_rate"]
    metric: str | None = Field(default=None, description="The metric concerned (measured_nothing)")
    message: str


class ExperimentAggregates(BaseModel):
    """What the coordinator stores in ``experiments.aggregates``."""

    schema_version: Literal[1] = 1
    experiment_id: str
    name: str
    item_count: int
    ok_count: int
    error_count: int
    error_rate: float | None = Field(description="error_count / item_count; None for an empty run")
    pass_threshold: float
    pass_criteria: dict[str, PassCriterion] = Field(
        default_factory=dict, description="metric → how its values pass (see pass_rule)"
    )
    metric_specs: dict[str, MetricSpec] = Field(
        default_factory=dict,
        description="metric → its resolved spec when the run was aggregated (direction, criterion, "
        "regression threshold, range, evaluator version); empty in runs aggregated before specs existed",
    )
    passed: int
    not_measured: int = Field(default=0, description="Ok items with no value for any gating metric")
    pass_rate: float | None = Field(description="passed / item_count; None for an empty run")
    metrics: dict[str, MetricAggregate]
    breakdowns: dict[str, dict[str, BreakdownGroup]] = Field(
        description="metadata key → value → group aggregates"
    )
    latency: LatencyStats
    tokens: TokenTotals | None = Field(description="None when no item reported usage")
    run_scores: list[Evaluation]
    warnings: list[RunWarning] = Field(default_factory=list)
    gates: list[GateResult] = Field(default_factory=list, description="Absolute gates, checked on the means")
    cache_hits: int = Field(
        default=0, description="Items scored from the output cache: their target was not called"
    )
    judge_cache_hits: int = Field(
        default=0, description="Judge verdicts served from the judge cache: no LLM call made for them"
    )
    spend: Spend | None = Field(
        default=None, description="Tokens and cost of the run's LLM calls (target and judges), per model"
    )

    def gate_values(self) -> dict[str, float | None]:
        """What a gate can name: every metric's mean, pass_rate, error_rate, latency_ms (mean) and
        latency_p95_ms."""
        values: dict[str, float | None] = {m: agg.mean for m, agg in self.metrics.items()}
        values |= {
            "pass_rate": self.pass_rate,
            "error_rate": self.error_rate,
            "latency_ms": self.latency.mean,
            "latency_p95_ms": self.latency.p95,
        }
        return values
