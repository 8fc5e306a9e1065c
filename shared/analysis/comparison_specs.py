"""Which metrics a comparison compares, what each means in it, and which of them gate.

- The compared metrics: every score metric both runs scored (or ``ComparisonConfig.metrics``), then
  ``latency_ms`` and ``error_rate`` unless switched off.
- A metric's meaning is the candidate's resolved spec (``MetricSpecs``), overridden for one
  comparison by ``ComparisonConfig.thresholds`` (a signed delta, or a margin relative to the
  baseline's mean, '+20%', resolved once that mean is known) and ``lower_is_better``.
- The gating (primary) family: ``ComparisonConfig.primary``, else the metrics their evaluators
  declare primary, else every metric with a regression threshold; plus ``error_rate`` and any metric
  given a threshold of its own in the comparison. The others are secondary.
"""

from __future__ import annotations

from shared.analysis.errors import ComparisonError
from shared.analysis.metric_specs import ERROR_RATE_METRIC, LATENCY_METRIC, MetricSpecs
from shared.analysis.paired_columns import PairedColumns
from yardstick.api.comparison_config import ComparisonConfig, relative_threshold
from yardstick.api.metric_spec import MetricSpec


def select_metrics(paired: PairedColumns, config: ComparisonConfig) -> tuple[list[str], list[str], list[str]]:
    base_names, cand_names = paired.baseline.metric_names, paired.candidate.metric_names
    extras = []
    has_latency = paired.baseline.has_latency and paired.candidate.has_latency
    if config.include_latency and has_latency:
        extras.append(LATENCY_METRIC)
    if config.include_error_rate:
        extras.append(ERROR_RATE_METRIC)
    if config.metrics is None:
        chosen = sorted(base_names & cand_names) + extras
    else:
        known = base_names | cand_names | {LATENCY_METRIC, ERROR_RATE_METRIC}
        unknown = [m for m in config.metrics if m not in known]
        if unknown:
            raise ComparisonError(f"metrics {unknown} are scored in neither run; available: {sorted(known)}")
        chosen = list(dict.fromkeys(config.metrics))
    return chosen, sorted(base_names - cand_names), sorted(cand_names - base_names)


def comparison_spec(metric: str, specs: MetricSpecs, config: ComparisonConfig) -> MetricSpec:
    """``metric``'s spec for this comparison: the run's, with the comparison's own overrides."""
    spec = specs.spec(metric)
    if metric in config.lower_is_better and not spec.lower_is_better:
        magnitude = spec.regression_threshold if spec.regression_threshold is not None else 0.05
        # the item-level criterion pointed the other way: a comparison does not use it
        spec = spec.model_copy(
            update={"direction": "lower_is_better", "regression_threshold": magnitude, "passes": None}
        )
    threshold = config.thresholds.get(metric)
    if threshold is not None and relative_threshold(threshold) is None:
        try:
            spec = spec.with_signed_threshold(float(threshold))
        except ValueError as exc:
            raise ComparisonError(f"{metric!r}: {exc}") from exc
    return spec


def with_relative_threshold(
    metric: str, spec: MetricSpec, percent: float, baseline_mean: float | None
) -> MetricSpec:
    """``spec`` with a threshold of ``percent`` % of the baseline's mean ('+20%' of latency)."""
    if baseline_mean is None or baseline_mean == 0.0:
        raise ComparisonError(
            f"{metric!r}: a relative threshold ({percent:+g}%) needs a non-zero baseline mean; "
            "give an absolute one instead"
        )
    direction = spec.direction
    if direction == "informational":
        direction = "lower_is_better" if percent > 0 else "higher_is_better"
        spec = spec.model_copy(update={"direction": direction})
    try:
        return spec.with_signed_threshold(abs(baseline_mean) * percent / 100.0)
    except ValueError as exc:
        raise ComparisonError(f"{metric!r}: {exc}") from exc


def gating_metrics(metrics: list[str], specs: dict[str, MetricSpec], config: ComparisonConfig) -> set[str]:
    """The primary family: ``config.primary``, else the metrics their evaluators declare primary,
    else every metric with a regression threshold; plus error_rate and any metric the comparison
    gives a threshold of its own."""
    if config.primary is not None:
        unknown = [m for m in config.primary if m not in metrics]
        if unknown:
            raise ComparisonError(f"primary metrics {unknown} are not compared; compared: {metrics}")
        chosen = set(config.primary)
    else:
        chosen = {m for m in metrics if specs[m].primary} or {m for m in metrics if specs[m].compared}
    chosen |= {m for m in metrics if m in config.thresholds or m == ERROR_RATE_METRIC}
    return chosen


__all__ = ["comparison_spec", "gating_metrics", "select_metrics", "with_relative_threshold"]
