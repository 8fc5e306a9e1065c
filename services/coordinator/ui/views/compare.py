"""The comparison page: verdict banner, the items that broke (must-pass ones first), per-metric
statistics with reasons, per-breakdown deltas."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from services.coordinator.ui.views import formatting
from shared.analysis import describe_mde, direction_arrow, fmt_mde
from yardstick.api.comparison_report import ComparisonReport, MetricResult

Tone = Literal["bad", "good", "neutral", "warn"]


class Banner(BaseModel):
    tone: Tone
    title: str
    detail: str


class MetricLine(BaseModel):
    metric: str
    secondary: bool = Field(default=False, description="Not in the gating family: exploratory")
    arrow: str = Field(description="↑ higher is better, ↓ lower is better, · informational (its spec)")
    baseline: float | None
    candidate: float | None
    delta: float | None
    delta_ci: str
    p_raw: float | None
    p_adjusted: float | None
    test: str
    threshold: str
    status: str
    tone: Tone
    reason: str
    n_pairs: int
    mde: str
    mde_title: str


class BreakdownLine(BaseModel):
    group: str
    n_pairs: int
    metrics: list[MetricLine]


class ComparePage(BaseModel):
    report: ComparisonReport
    banner: Banner
    metrics: list[MetricLine]
    breakdowns: list[BreakdownLine]


_TONES: dict[str, Tone] = {"regression": "bad", "improvement": "good", "insufficient_data": "warn"}


def metric_line(result: MetricResult) -> MetricLine:
    c = result.comparison
    return MetricLine(
        metric=result.metric,
        secondary=result.role == "secondary",
        arrow=direction_arrow(result),
        baseline=c.baseline.mean,
        candidate=c.candidate.mean,
        delta=c.delta,
        delta_ci=formatting.interval(c.delta_ci_low, c.delta_ci_high),
        p_raw=c.p_value,
        p_adjusted=result.p_adjusted,
        test=(c.test or "—").replace("_", " "),
        threshold="—" if result.threshold is None else f"{result.threshold:+g}",
        status=result.status.replace("_", " "),
        tone=_TONES.get(result.status, "neutral"),
        reason=result.reason,
        n_pairs=c.n_pairs,
        mde=fmt_mde(result, brief=True),
        mde_title="" if result.mde is None else describe_mde(result.mde, result.family_size or 1),
    )


def banner(report: ComparisonReport) -> Banner:
    """The verdict's headline as the title, the details beneath (older reports: the verdict alone)."""
    headline = report.headline or report.verdict
    detail = report.verdict[len(report.headline) :].strip() if report.headline else ""
    if report.regression or not report.gates_passed:
        return Banner(tone="bad", title=headline, detail=detail)
    if report.inconclusive:
        return Banner(tone="warn", title=headline, detail=detail)
    if report.improvements:
        return Banner(tone="good", title=headline, detail=detail)
    return Banner(tone="neutral", title=headline, detail=detail)


def compare_page(report: ComparisonReport) -> ComparePage:
    return ComparePage(
        report=report,
        banner=banner(report),
        metrics=[metric_line(m) for m in report.metrics],
        breakdowns=[
            BreakdownLine(
                group=f"{b.key} = {b.value}", n_pairs=b.n_pairs, metrics=[metric_line(m) for m in b.metrics]
            )
            for b in report.breakdowns
        ],
    )


def lower_is_better(report: ComparisonReport, metric: str) -> bool:
    return any(m.metric == metric and m.direction == "lower_is_better" for m in report.metrics)


def diff_metrics(report: ComparisonReport) -> list[str]:
    """Metrics the item diff can order by: the compared item metrics except latency."""
    return [m.metric for m in report.metrics if m.metric not in ("latency_ms",)]


def default_diff_metric(report: ComparisonReport, metrics: list[str]) -> str | None:
    """The metric the item diff orders by when none is asked: a regressed primary metric, else the
    metric of the first broken item, else the first primary metric, else the first metric."""
    broken = [c.metric for c in report.broken_items]
    primary = [m.metric for m in report.metrics if m.role == "primary"]
    for metric in [*report.regressions, *broken, *primary, *metrics]:
        if metric in metrics:
            return metric
    return None
