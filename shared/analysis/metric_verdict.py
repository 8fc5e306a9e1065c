"""One metric's status in a comparison and why, in words: regression, improvement, no significant
change, insufficient data or informational (see ``verdict``)."""

from __future__ import annotations

from typing import Literal

from shared.analysis.detectability import too_few_items
from yardstick.api.comparison_config import ComparisonConfig
from yardstick.api.comparison_report import MetricResult
from yardstick.api.metric_spec import MetricSpec
from yardstick.api.statistics import PairedComparison

Status = Literal["regression", "improvement", "no_significant_change", "insufficient_data", "informational"]
Role = Literal["primary", "secondary"]


def verdict(
    comp: PairedComparison,
    p_adj: float | None,
    spec: MetricSpec,
    config: ComparisonConfig,
    adjusted_by: str = "Holm",
) -> tuple[Status, str]:
    """The status of one metric and why, in words.

    A regression needs both: the change is significant (Holm-adjusted p < alpha) and it passes the
    threshold in the bad direction: by its point estimate (``gate="point"``), or by the whole
    interval of the delta (``gate="ci"``). An improvement mirrors it. With ``point`` a true change
    exactly at the threshold is flagged about half the time whatever n is (the estimate falls on
    either side); ``ci`` flags it almost never, at the cost of needing a clearly larger change."""
    if comp.delta is None or p_adj is None:
        return "insufficient_data", f"{comp.n_pairs} complete pair(s): too few to test"
    threshold, lower = spec.signed_threshold(), spec.lower_is_better
    if threshold is None and spec.direction != "informational":
        return "informational", (
            f"not gating: delta {comp.delta:+.3g} "
            f"[{_signed(comp.delta_ci_low)}, {_signed(comp.delta_ci_high)}] is shown "
            f"(p {comp.p_value:.3g}, {comp.test}); it gates only under a budget (--gate) or a "
            "margin (--threshold) you set"
        )
    if threshold is None:
        return "informational", (
            f"informational metric: delta {comp.delta:+.3g} is shown, never called a regression or an "
            f"improvement (p {comp.p_value:.3g}, {comp.test})"
        )
    if (too_few := too_few_items(comp, config.alpha)) is not None:
        return "insufficient_data", too_few
    sign = -1.0 if lower else 1.0  # flip lower-is-better metrics so "bigger is better"
    low, high = comp.delta_ci_low, comp.delta_ci_high
    worst = (
        comp.delta if config.gate == "point" or low is None or high is None else (high if not lower else low)
    )
    best = (
        comp.delta if config.gate == "point" or low is None or high is None else (low if not lower else high)
    )
    below = "<" if p_adj < config.alpha else ">="
    p_text = f"p({adjusted_by}) {p_adj:.3g} {below} alpha {config.alpha:g} ({comp.test})"
    interval = "-" if low is None or high is None else f"[{low:+.3g}, {high:+.3g}]"
    measure = "its interval" if config.gate == "ci" else "delta"
    if p_adj >= config.alpha:
        note = ""
        if low is not None and high is not None and (low > 0 or high < 0):
            note = (
                f"; the {config.confidence:.0%} interval {interval} excludes 0 but is not adjusted "
                "for the number of metrics compared"
            )
        return "no_significant_change", f"not significant: {p_text}{note}"
    if sign * worst < sign * threshold:
        return "regression", (
            f"{measure} {comp.delta:+.3g} {interval} is beyond the {threshold:+g} threshold and {p_text}"
        )
    if sign * best > -sign * threshold:
        return "improvement", (
            f"{measure} {comp.delta:+.3g} {interval} is beyond the {-threshold:+g} threshold and {p_text}"
        )
    return "no_significant_change", (
        f"significant ({p_text}) but {measure} {comp.delta:+.3g} {interval} does not pass the "
        f"{threshold:+g} threshold"
    )


def _signed(value: float | None) -> str:
    return "-" if value is None else f"{value:+.3g}"


def metric_result(
    metric: str,
    comp: PairedComparison,
    p_adj: float | None,
    spec: MetricSpec,
    config: ComparisonConfig,
    role: Role = "primary",
    adjusted_by: str = "Holm",
) -> MetricResult:
    significant = p_adj is not None and p_adj < config.alpha
    status, reason = verdict(comp, p_adj, spec, config, adjusted_by)
    if role == "secondary" and status in ("regression", "improvement"):
        reason = f"exploratory (secondary metric, does not gate): {reason}"
    return MetricResult(
        role=role,
        metric=metric,
        direction=spec.direction,
        threshold=spec.signed_threshold(),
        spec=spec,
        comparison=comp,
        p_adjusted=p_adj,
        significant=significant,
        status=status,
        reason=reason,
    )


__all__ = ["Role", "Status", "metric_result", "verdict"]
