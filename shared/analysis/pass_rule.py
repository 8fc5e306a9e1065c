"""The one pass rule: whether a score passes, whether an item passes.

Every place that says "passed" uses this module: the aggregates (pass rate, per-group pass
rates), the items filter of the API (``failing=METRIC``), the reports and the UI.

A metric's :class:`PassCriterion` says which way is good and where the line is. It comes from,
in this order:

1. the experiment's own ``pass_criteria`` (``{"ndcg@10": ">=0.7"}``);
2. the evaluator that reports it (``register(..., passes=…)``): the retrieval evaluator gates a
   query on ``recall@K`` (K its largest cut-off) at ``>= 0.5`` — at least half the relevant
   documents found — and a null query on ``null_query_correct``, its other metrics informational
   (``precision@10`` cannot exceed 0.3 when three documents are relevant, so it must not gate);
   ``trajectory_pass`` applies the scenario's own policy, so the checks it combines are
   informational beside it;
3. the default: millisecond metrics (``*_ms``) are informational; lower-is-better rates
   (``hallucination_rate``, ``error_rate``) pass at ``<= 1 - pass_threshold``; every other score at
   ``>= pass_threshold``.

An item's outcome: ``error`` when its target call failed; ``not_measured`` when none of its gating
metrics has a value (None/NaN is "not measured", never a pass); ``failed`` when a gating metric
fails; else ``passed``. The pass rate is passed / all items.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Literal

import numpy as np

from shared.analysis.columns import BoolArray
from shared.analysis.comparison_rules import is_lower_better
from shared.analysis.run_data import ScoredItem
from shared.contracts.evaluation import EvaluatorSpec
from shared.contracts.experiment_config import DEFAULT_PASS_THRESHOLD, ExperimentConfig
from shared.contracts.pass_criteria import INFORMATIONAL, PassCriterion, higher_is_better, lower_is_better
from shared.evaluators.registry import get
from shared.stats import FloatArray

Outcome = Literal["passed", "failed", "not_measured", "error"]


def default_criterion(metric: str, pass_threshold: float = DEFAULT_PASS_THRESHOLD) -> PassCriterion:
    """The criterion of a metric no evaluator declares, under an experiment's ``pass_threshold``."""
    if metric.endswith("_ms"):
        return INFORMATIONAL
    if is_lower_better(metric):
        return lower_is_better(1.0 - pass_threshold)
    return higher_is_better(pass_threshold)


class PassPolicy:
    """Metric → criterion for one experiment: its overrides, its evaluators' declarations, the default."""

    def __init__(
        self,
        pass_threshold: float = DEFAULT_PASS_THRESHOLD,
        evaluators: Iterable[EvaluatorSpec] = (),
        overrides: Mapping[str, PassCriterion] | None = None,
    ) -> None:
        self.pass_threshold = pass_threshold
        self.evaluators = [spec for spec in evaluators if _known_item_evaluator(spec.name)]
        self.overrides = dict(overrides or {})
        self._cache: dict[str, PassCriterion] = {}

    @classmethod
    def from_criteria(
        cls, criteria: Mapping[str, PassCriterion], pass_threshold: float = DEFAULT_PASS_THRESHOLD
    ) -> PassPolicy:
        """The policy a finished run was aggregated with (``ExperimentAggregates.pass_criteria``)."""
        return cls(pass_threshold, overrides=criteria)

    def criterion(self, metric: str) -> PassCriterion:
        if metric not in self._cache:
            self._cache[metric] = self._resolve(metric)
        return self._cache[metric]

    def _resolve(self, metric: str) -> PassCriterion:
        if metric in self.overrides:
            return self.overrides[metric]
        for spec in self.evaluators:
            declared = get(spec.name, "item").criterion(metric, spec.args)
            if declared is not None:
                return declared
        return default_criterion(metric, self.pass_threshold)

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


def _known_item_evaluator(name: str) -> bool:
    try:
        get(name, "item")
    except LookupError:  # an evaluator this build no longer has: its metrics follow the default
        return False
    return True


def policy_for(config: ExperimentConfig) -> PassPolicy:
    """The pass policy an experiment's configuration asks for."""
    return PassPolicy(config.pass_threshold, config.evaluators, config.pass_criteria)


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
