"""The one pass rule: whether a score passes, whether an item passes.

Every place that says "passed" uses this module: the aggregates (pass rate, per-group pass
rates), the items filter of the API (``failing=METRIC``), the reports and the UI.

A metric's criterion is its resolved spec's (``shared.analysis.metric_specs``: the experiment's
overrides, what its evaluator declared, the default), so the pass rule, comparisons and the UI
agree on which way is good.

An item's outcome: ``error`` when its target call failed; ``not_measured`` when none of its gating
metrics has a value (None/NaN is "not measured", never a pass); ``failed`` when a gating metric
fails; else ``passed``. The pass rate is passed / all items.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

import numpy as np

from shared.analysis.columns import BoolArray
from shared.analysis.metric_specs import MetricSpecs
from shared.analysis.stats import FloatArray
from yardstick.api.experiment_config import ExperimentConfig
from yardstick.api.metric_spec import MetricSpec
from yardstick.api.pass_criteria import PassCriterion
from yardstick.api.run_aggregates import ExperimentAggregates
from yardstick.api.run_data import ScoredItem

Outcome = Literal["passed", "failed", "not_measured", "error"]


class PassPolicy(MetricSpecs):
    """The pass rule over one experiment's resolved metric specs."""

    def criterion(self, metric: str) -> PassCriterion:
        return self.spec(metric).criterion

    def criteria(self, metrics: Iterable[str]) -> dict[str, PassCriterion]:
        return {m: self.criterion(m) for m in sorted(metrics)}

    def outcome(self, item: ScoredItem) -> Outcome:
        """``passed``, ``failed``, ``not_measured`` or ``error`` (see the module docstring)."""
        if item.status != "ok":
            return "error"
        verdicts = [self.criterion(name).passes(value) for name, value in item.scores.items()]
        if any(v is False for v in verdicts):
            return "failed"
        return "passed" if any(v is True for v in verdicts) else "not_measured"

    def passed(self, item: ScoredItem) -> bool:
        return self.outcome(item) == "passed"

    def reasons(self, item: ScoredItem) -> list[str]:
        """Why ``item`` did not pass, in words (empty when it passed)."""
        if item.status != "ok":
            return [item.error or "target call failed"]
        failing = [
            f"{name}={value:.3g} (needs {self.criterion(name).describe()})"
            for name, value in item.scores.items()
            if self.criterion(name).passes(value) is False and value is not None
        ]
        if failing or self.outcome(item) == "passed":
            return failing
        return ["not measured: no gating metric has a value"]


def stored_policy(aggregates: ExperimentAggregates) -> PassPolicy:
    """The policy a finished run was aggregated with: its stored specs (older runs: their criteria)."""
    declared = aggregates.metric_specs or {
        metric: MetricSpec.from_criterion(criterion) for metric, criterion in aggregates.pass_criteria.items()
    }
    return PassPolicy(aggregates.pass_threshold, declared)


def policy_for(config: ExperimentConfig) -> PassPolicy:
    """The pass policy an experiment's configuration asks for."""
    return PassPolicy(
        config.pass_threshold, config.metric_specs, config.pass_criteria, config.regression_thresholds
    )


def clears(criterion: PassCriterion, values: FloatArray) -> BoolArray:
    """Per value: does it let its item pass? (missing values and informational metrics do)."""
    if criterion.threshold is None:
        return np.ones(values.size, dtype=np.bool_)
    with np.errstate(invalid="ignore"):
        good = (
            values <= criterion.threshold
            if criterion.direction == "lower_is_better"
            else values >= criterion.threshold
        )
    result: BoolArray = np.isnan(values) | good
    return result


def measured(criterion: PassCriterion, values: FloatArray) -> BoolArray:
    """Per value: is it a measured value of a gating metric?"""
    if criterion.threshold is None:
        return np.zeros(values.size, dtype=np.bool_)
    result: BoolArray = ~np.isnan(values)
    return result


def item_passed(item: ScoredItem, policy: PassPolicy | None = None) -> bool:
    """Whether ``item`` passes under ``policy`` (the default policy when None)."""
    return (policy or PassPolicy()).passed(item)
