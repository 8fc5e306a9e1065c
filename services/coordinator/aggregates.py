"""Aggregates of one experiment: per-metric summaries, breakdowns, pass rate, latency, tokens.

Conventions (the same as ``regression``):
- Scores of items with status ``error`` are ignored; errors are counted separately.
- A metric's ``count`` is the ok items with a value; ``none_count`` the ok items where the
  evaluator returned None or did not report the metric.
- An item PASSES when its status is ``ok`` and every non-None score clears the pass
  threshold: ``score >= pass_threshold`` for higher-is-better metrics and
  ``score <= 1 - pass_threshold`` for lower-is-better rates (e.g. ``hallucination_rate``).
  Millisecond metrics (``*_ms``) are not pass criteria. An ok item without scores passes.
  ``pass_rate`` = passed / all items (errors count as failures).
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field

from services.coordinator.regression_rules import is_lower_better
from services.coordinator.run_data import RunData, ScoredItem
from shared.contracts.evaluation import Evaluation
from shared.stats import percentiles, summarize

DEFAULT_BREAKDOWN_KEYS = ("category", "difficulty", "query_type")


class MetricAggregate(BaseModel):
    """One evaluator over the ok items."""

    mean: float | None
    median: float | None
    p95: float | None
    sd: float | None = Field(description="Sample SD (ddof=1)")
    ci_low: float | None = Field(description="95% t-interval of the mean (lower)")
    ci_high: float | None = Field(description="95% t-interval of the mean (upper)")
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


class ExperimentAggregates(BaseModel):
    """What the coordinator stores in ``experiments.aggregates`` (``model_dump(mode="json")``)."""

    experiment_id: str
    name: str
    item_count: int
    ok_count: int
    error_count: int
    error_rate: float | None = Field(description="error_count / item_count; None for an empty run")
    pass_threshold: float
    passed: int
    pass_rate: float | None = Field(description="passed / item_count; None for an empty run")
    metrics: dict[str, MetricAggregate]
    breakdowns: dict[str, dict[str, BreakdownGroup]] = Field(
        description="metadata key → value → group aggregates"
    )
    latency: LatencyStats
    tokens: TokenTotals | None = Field(description="None when no item reported usage")
    run_scores: list[Evaluation]


def item_passed(item: ScoredItem, pass_threshold: float = 0.5) -> bool:
    """The pass rule of the module docstring."""
    if item.status != "ok":
        return False
    for name, value in item.scores.items():
        if value is None or name.endswith("_ms"):
            continue
        ok = value <= 1.0 - pass_threshold if is_lower_better(name) else value >= pass_threshold
        if not ok:
            return False
    return True


def _metric_names(items: Sequence[ScoredItem]) -> list[str]:
    return sorted({name for item in items for name in item.scores})


def _values(items: Sequence[ScoredItem], metric: str) -> list[float | None]:
    return [item.scores.get(metric) for item in items if item.status == "ok"]


def _metric_aggregate(values: list[float | None]) -> MetricAggregate:
    s = summarize(values)
    return MetricAggregate(
        mean=s.mean,
        median=s.median,
        p95=s.p95,
        sd=s.sd,
        ci_low=s.ci_low,
        ci_high=s.ci_high,
        count=s.n,
        none_count=s.n_dropped,
    )


def _group(items: Sequence[ScoredItem], metrics: list[str], pass_threshold: float) -> BreakdownGroup:
    passed = sum(item_passed(i, pass_threshold) for i in items)
    group_metrics: dict[str, GroupMetric] = {}
    for m in metrics:
        s = summarize(_values(items, m))
        group_metrics[m] = GroupMetric(mean=s.mean, count=s.n, none_count=s.n_dropped)
    return BreakdownGroup(
        count=len(items),
        passed=passed,
        pass_rate=passed / len(items),
        error_count=sum(i.status == "error" for i in items),
        metrics=group_metrics,
    )


def _latency(items: Sequence[ScoredItem]) -> LatencyStats:
    values = [i.latency_ms for i in items if i.status == "ok" and i.latency_ms is not None]
    if not values:
        return LatencyStats(count=0)
    pct = percentiles(values)
    return LatencyStats(count=pct.n, mean=sum(values) / len(values), p50=pct.p50, p95=pct.p95, p99=pct.p99)


def _tokens(items: Sequence[ScoredItem]) -> TokenTotals | None:
    usages = [i.usage for i in items if i.usage is not None]
    if not usages:
        return None
    return TokenTotals(
        items_reporting=len(usages),
        input_tokens=sum(u.input_tokens for u in usages),
        output_tokens=sum(u.output_tokens for u in usages),
        total_tokens=sum(u.total_tokens for u in usages),
    )


def compute_aggregates(
    run: RunData,
    pass_threshold: float = 0.5,
    breakdown_keys: Sequence[str] = DEFAULT_BREAKDOWN_KEYS,
) -> ExperimentAggregates:
    """Aggregate one run; see the module docstring for the conventions."""
    items = run.items
    metrics = _metric_names(items)
    n = len(items)
    errors = sum(i.status == "error" for i in items)
    passed = sum(item_passed(i, pass_threshold) for i in items)
    breakdowns: dict[str, dict[str, BreakdownGroup]] = {}
    for key in breakdown_keys:
        groups: dict[str, list[ScoredItem]] = {}
        for item in items:
            if item.metadata.get(key) is not None:
                groups.setdefault(str(item.metadata[key]), []).append(item)
        if groups:
            breakdowns[key] = {v: _group(groups[v], metrics, pass_threshold) for v in sorted(groups)}
    return ExperimentAggregates(
        experiment_id=run.experiment_id,
        name=run.name,
        item_count=n,
        ok_count=n - errors,
        error_count=errors,
        error_rate=errors / n if n else None,
        pass_threshold=pass_threshold,
        passed=passed,
        pass_rate=passed / n if n else None,
        metrics={m: _metric_aggregate(_values(items, m)) for m in metrics},
        breakdowns=breakdowns,
        latency=_latency(items),
        tokens=_tokens(items),
        run_scores=list(run.run_scores),
    )
