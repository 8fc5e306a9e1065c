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

import numpy as np

from shared.analysis.columns import (
    BoolArray,
    IndexArray,
    RunColumns,
)
from shared.analysis.pass_rule import PassPolicy, clears, measured
from shared.analysis.stats import FloatArray, clip_to_range, percentiles, summarize
from yardstick.api.experiment_config import DEFAULT_MAX_ERROR_RATE
from yardstick.api.gates import Gate, check_gates
from yardstick.api.metric_spec import MetricSpec
from yardstick.api.run_aggregates import (
    BreakdownGroup,
    ExperimentAggregates,
    GroupMetric,
    LatencyStats,
    MetricAggregate,
    RunWarning,
    TokenTotals,
)

DEFAULT_BREAKDOWN_KEYS = ("category", "difficulty", "query_type")


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
