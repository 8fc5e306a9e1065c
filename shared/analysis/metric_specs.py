"""Every metric's resolved meaning for one experiment: the one place that answers "which way is
good, when does it pass, what change regresses" (see :mod:`yardstick.api.metric_spec`).

A metric's spec is, in this order:

1. the experiment's overrides: ``pass_criteria`` (``{"m": "<=0.1"}``; a gating criterion also sets
   the direction, so ``--pass 'm<=x'`` makes ``m`` lower-is-better everywhere) and
   ``regression_thresholds`` (signed deltas, ``{"m": -0.1}``);
2. what its evaluator declared (``register(..., metrics=…)``), as recorded in the experiment's
   ``metric_specs`` at submission;
3. the platform's own metrics: ``latency_ms`` (lower is better, informational for items, and in a
   comparison shown but not gating: latency between two runs minutes apart measures the machine as
   much as the change; it gates under a comparison's own threshold, '+20%', or a gate),
   ``error_rate`` (lower is better, +0.02 regresses) and people's labels ``human.<field>``
   (higher is better, in [0, 1]: see ``yardstick.api.review``);
4. the default for a metric nobody declared: higher is better, unbounded range.

A spec without a pass criterion passes at the experiment's ``pass_threshold`` (``>= t``, or
``<= 1 - t`` when lower is better).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from yardstick.api.experiment_config import DEFAULT_PASS_THRESHOLD
from yardstick.api.metric_spec import UNBOUNDED, UNIT_RANGE, MetricSpec
from yardstick.api.pass_criteria import PassCriterion
from yardstick.api.review import HUMAN_METRIC_PREFIX, HUMAN_SOURCE

LATENCY_METRIC = "latency_ms"
ERROR_RATE_METRIC = "error_rate"
LATENCY_SPEC = MetricSpec.informational("lower_is_better", range=(0.0, None), unit="ms")
ERROR_RATE_SPEC = MetricSpec.informational("lower_is_better", regression=0.02)
PLATFORM_SPECS: dict[str, MetricSpec] = {LATENCY_METRIC: LATENCY_SPEC, ERROR_RATE_METRIC: ERROR_RATE_SPEC}
UNDECLARED_SPEC = MetricSpec.higher(range=UNBOUNDED)
HUMAN_SPEC = MetricSpec.higher(range=UNIT_RANGE).model_copy(update={"evaluator": HUMAN_SOURCE})


def platform_spec(metric: str) -> MetricSpec | None:
    """The spec of a metric the platform itself reports (latency, error rate, human labels)."""
    if metric.startswith(HUMAN_METRIC_PREFIX):
        return HUMAN_SPEC
    return PLATFORM_SPECS.get(metric)


def with_criterion(spec: MetricSpec, criterion: PassCriterion) -> MetricSpec:
    """``spec`` passing at ``criterion``; a gating criterion sets the direction too."""
    if not criterion.gates:
        return spec.model_copy(update={"passes": criterion})
    return spec.model_copy(update={"passes": criterion, "direction": criterion.direction})


class MetricSpecs:
    """metric → resolved :class:`MetricSpec` for one experiment (see the module docstring)."""

    def __init__(
        self,
        pass_threshold: float = DEFAULT_PASS_THRESHOLD,
        declared: Mapping[str, MetricSpec] | None = None,
        pass_criteria: Mapping[str, PassCriterion] | None = None,
        regression_thresholds: Mapping[str, float] | None = None,
    ) -> None:
        self.pass_threshold = pass_threshold
        self.declared = dict(declared or {})
        self.pass_criteria = dict(pass_criteria or {})
        self.regression_thresholds = dict(regression_thresholds or {})
        self._cache: dict[str, MetricSpec] = {}

    def spec(self, metric: str) -> MetricSpec:
        if metric not in self._cache:
            self._cache[metric] = self._resolve(metric)
        return self._cache[metric]

    def _resolve(self, metric: str) -> MetricSpec:
        spec = self.declared.get(metric) or platform_spec(metric) or UNDECLARED_SPEC
        if metric in self.pass_criteria:
            spec = with_criterion(spec, self.pass_criteria[metric])
        if metric in self.regression_thresholds:
            spec = spec.with_signed_threshold(self.regression_thresholds[metric])
        return spec.resolved(self.pass_threshold)

    def specs(self, metrics: Iterable[str]) -> dict[str, MetricSpec]:
        return {m: self.spec(m) for m in sorted(metrics)}


def spec_differences(
    metrics: Iterable[str], baseline: MetricSpecs, candidate: MetricSpecs
) -> dict[str, list[str]]:
    """metric → what differs between the two runs' specs of it (metrics that match are left out)."""
    out = {}
    for metric in metrics:
        differences = baseline.spec(metric).differences(candidate.spec(metric))
        if differences:
            out[metric] = differences
    return out
