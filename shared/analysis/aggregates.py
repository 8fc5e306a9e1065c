"""Aggregates of one experiment: per-metric summaries, breakdowns, pass rate, latency, tokens.

Conventions (the same as ``comparison``):
- Scores of items with status ``error`` are ignored; errors are counted separately.
- A metric's ``count`` is the ok items with a value; ``none_count`` the ok items where the
  evaluator returned None or did not report the metric.
- Whether an item passes is ``pass_rule``'s decision (one rule for every output);
  ``pass_rate`` = passed / all items (errors and items not measured count as not passed);
  ``not_measured`` counts ok items none of whose gating metrics has a value.
- ``warnings`` say when a run measured nothing: a metric with no value on any ok item, or more
  errors than the experiment's ``max_error_rate``.
- A NaN score or latency counts as missing (None).

Computed from per-item columns (``columns``) one metric at a time, so aggregating a run of
any size holds only a few arrays of item-count length: ``AggregateBuilder`` (the finalizer feeds
it from Postgres; tests feed it in-memory runs).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np
from pydantic import BaseModel, Field

from shared.analysis.columns import (
    BoolArray,
    IndexArray,
    RunColumns,
)
from shared.analysis.pass_rule import PassPolicy, clears, measured
from shared.contracts.evaluation import Evaluation
from shared.contracts.experiment_config import DEFAULT_MAX_ERROR_RATE
from shared.contracts.gates import Gate, GateResult, check_gates
from shared.contracts.metric_spec import MetricSpec
from shared.contracts.pass_criteria import PassCriterion
from shared.stats import FloatArray, clip_to_range, percentiles, summarize

DEFAULT_BREAKDOWN_KEYS = ("category", "difficulty", "query_type")


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

    def pass_policy(self) -> PassPolicy:
        """The policy this run was aggregated with (its stored specs; older runs: their criteria)."""
        declared = self.metric_specs or {
            m: MetricSpec.from_criterion(c) for m, c in self.pass_criteria.items()
        }
        return PassPolicy(self.pass_threshold, declared)


def _metric_aggregate(values: FloatArray, spec: MetricSpec) -> MetricAggregate:
    s = clip_to_range(summarize(values), spec.range)
    return MetricAggregate(
        mean=s.mean,
        median=s.median,
        p95=s.p95,
        sd=s.sd,
        ci_low=s.ci_low,
        ci_high=s.ci_high,
        ci_method=s.ci_method,
        count=s.n,
        none_count=s.n_dropped,
    )


def _latency(columns: RunColumns) -> LatencyStats:
    values = columns.latency[columns.ok & ~np.isnan(columns.latency)]
    if values.size == 0:
        return LatencyStats(count=0)
    pct = percentiles(values)
    mean = sum(values.tolist()) / values.size  # Python's sum, as over the items before
    return LatencyStats(count=pct.n, mean=mean, p50=pct.p50, p95=pct.p95, p99=pct.p99)


def _tokens(columns: RunColumns) -> TokenTotals | None:
    usage = columns.usage
    if not usage.items_reporting:
        return None
    return TokenTotals(
        items_reporting=usage.items_reporting,
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        total_tokens=usage.total_tokens,
    )


class AggregateBuilder:
    """Aggregates of one run fed one metric at a time (only that metric's values in memory).

    ``add_metric`` for every name in ``columns.metric_names`` (any order), then ``finish``.
    """

    def __init__(
        self,
        columns: RunColumns,
        policy: PassPolicy | None = None,
        breakdown_keys: Sequence[str] = DEFAULT_BREAKDOWN_KEYS,
        max_error_rate: float = DEFAULT_MAX_ERROR_RATE,
        gates: Sequence[Gate] = (),
    ) -> None:
        self.gates = list(gates)
        self.columns = columns
        self.policy = policy or PassPolicy()
        self.max_error_rate = max_error_rate
        self.passed: BoolArray = columns.ok.copy()
        self.measured: BoolArray = np.zeros(columns.size, dtype=np.bool_)
        self._metrics: dict[str, MetricAggregate] = {}
        self._groups: dict[str, list[tuple[str, IndexArray]]] = {}
        for key in breakdown_keys:
            if key not in columns.groups:
                raise ValueError(f"the run's columns have no metadata column {key!r}; load it first")
            parts = columns.groups[key].partition()
            if parts:
                self._groups[key] = parts
        self._group_metrics: dict[tuple[str, str], dict[str, GroupMetric]] = {
            (key, label): {} for key, parts in self._groups.items() for label, _ in parts
        }

    def add_metric(self, name: str, values: FloatArray) -> None:
        """``values``: the metric for every item of the run, in item order (NaN = missing)."""
        ok = self.columns.ok
        spec = self.policy.spec(name)
        self._metrics[name] = _metric_aggregate(values[ok], spec)
        for key, parts in self._groups.items():
            for label, members in parts:
                s = summarize(values[members][ok[members]], ci_method="none")  # groups keep no interval
                self._group_metrics[(key, label)][name] = GroupMetric(
                    mean=s.mean, count=s.n, none_count=s.n_dropped
                )
        criterion = spec.criterion
        self.passed &= clears(criterion, values)
        self.measured |= measured(criterion, values)

    def _group(self, key: str, label: str, members: IndexArray) -> BreakdownGroup:
        count = int(members.size)
        passed = int(np.count_nonzero(self.passed[members]))
        metrics = self._group_metrics[(key, label)]
        return BreakdownGroup(
            count=count,
            passed=passed,
            pass_rate=passed / count,
            error_count=count - int(np.count_nonzero(self.columns.ok[members])),
            metrics={m: metrics[m] for m in sorted(metrics)},
        )

    def _finish(self) -> ExperimentAggregates:
        c = self.columns
        missing = set(c.metric_names) - set(self._metrics)
        if missing:
            raise ValueError(f"metrics {sorted(missing)} were never added; add_metric each of them first")
        n, errors = c.size, c.error_count
        self.passed &= self.measured
        passed = int(np.count_nonzero(self.passed))
        return ExperimentAggregates(
            experiment_id=c.experiment_id,
            name=c.name,
            item_count=n,
            ok_count=n - errors,
            error_count=errors,
            error_rate=errors / n if n else None,
            pass_threshold=self.policy.pass_threshold,
            pass_criteria=self.policy.criteria(self._metrics),
            metric_specs=self.policy.specs(self._metrics),
            passed=passed,
            not_measured=int(np.count_nonzero(c.ok & ~self.measured)),
            pass_rate=passed / n if n else None,
            metrics={m: self._metrics[m] for m in sorted(self._metrics)},
            breakdowns={
                key: {label: self._group(key, label, members) for label, members in parts}
                for key, parts in self._groups.items()
            },
            latency=_latency(c),
            tokens=_tokens(c),
            run_scores=list(c.run_scores),
            warnings=self._warnings(),
        )

    def finish(self) -> ExperimentAggregates:
        """The aggregates, with the absolute gates checked on them."""
        aggregates = self._finish()
        aggregates.gates = check_gates(self.gates, aggregates.gate_values())
        return aggregates

    def _warnings(self) -> list[RunWarning]:
        c = self.columns
        ok = c.size - c.error_count
        warnings = [
            RunWarning(
                kind="measured_nothing",
                metric=name,
                message=f"{name} has no value on any of the {ok} ok items: it measured nothing "
                "(see the items' comments for why)",
            )
            for name, agg in sorted(self._metrics.items())
            if ok and agg.count == 0
        ]
        if c.size and c.error_count / c.size > self.max_error_rate:
            warnings.append(
                RunWarning(
                    kind="error_rate",
                    message=f"{c.error_count} of {c.size} items errored "
                    f"({c.error_count / c.size:.1%}, allowed {self.max_error_rate:.1%})",
                )
            )
        return warnings
