"""The calibration page's view model: each agreement statistic as one row (name, value, interval,
method, or why it is missing), so the template shows every number with its interval; each
evaluator's people's-scale mean as three rows (PPI, judge only, labels only) with the interval drawn
on the scale's range."""

from __future__ import annotations

from pydantic import BaseModel

from services.coordinator.ui.views import formatting
from yardstick.api.agreement import BinaryAgreement, Estimate, OrdinalAgreement
from yardstick.api.calibration import Agreement, CalibrationReport
from yardstick.api.prediction_powered import MeanEstimate, PredictionPoweredMean

METHODS = {
    "wilson": "Wilson",
    "fce_adjusted_wald": "adjusted Wald (Fleiss-Cohen-Everitt)",
    "fisher_z_jackknife": "Fisher z, jackknife SE",
    "fisher_z_bonett_wright": "Fisher z, Bonett-Wright SE",
    "paired_jackknife_t": "paired jackknife, t",
    "paired_bootstrap_percentile": "paired bootstrap percentile",
    "ppi_clt": "prediction-powered, normal (CLT)",
    "bootstrap": "bootstrap percentile",
    "t": "Student t",
    "t_clipped": "Student t, clipped",
}


class StatRow(BaseModel):
    name: str
    value: str
    interval: str
    method: str
    missing: str | None = None


class Confusion(BaseModel):
    labels: list[str]
    rows: list[list[int]]


class AgreementView(BaseModel):
    rows: list[StatRow]
    n: int
    n_dropped: int
    confusion: Confusion


def _row(name: str, estimate: Estimate, as_percent: bool = False) -> StatRow:
    show = formatting.percent if as_percent else formatting.score
    if estimate.value is None:
        return StatRow(name=name, value="—", interval="", method="", missing=estimate.reason)
    low, high = estimate.ci_low, estimate.ci_high
    interval = "" if low is None or high is None else f"[{show(low)}, {show(high)}]"
    return StatRow(
        name=name,
        value=show(estimate.value),
        interval=interval,
        method=f"{round(estimate.confidence * 100)}% CI, {METHODS.get(estimate.method, estimate.method)}",
        missing=None if interval else estimate.reason,
    )


def agreement_view(agreement: Agreement | None) -> AgreementView | None:
    if agreement is None:
        return None
    return AgreementView(
        rows=stat_rows(agreement),
        n=agreement.n,
        n_dropped=agreement.n_dropped,
        confusion=Confusion(
            labels=[formatting.label(x) for x in agreement.confusion.labels], rows=agreement.confusion.counts
        ),
    )


def stat_rows(agreement: Agreement) -> list[StatRow]:
    rows = [_row("Agreement", agreement.observed_agreement, as_percent=True)]
    if isinstance(agreement, BinaryAgreement):
        rows += [
            _row("Cohen's κ", agreement.kappa),
            _row("True-positive rate (passes people pass)", agreement.true_positive_rate, as_percent=True),
            _row("True-negative rate (fails people fail)", agreement.true_negative_rate, as_percent=True),
        ]
    elif isinstance(agreement, OrdinalAgreement):
        rows += [
            _row(f"Weighted κ ({agreement.weights})", agreement.weighted_kappa),
            _row("Cohen's κ (exact matches)", agreement.kappa),
            _row("Spearman's rho", agreement.spearman),
        ]
    else:
        rows.append(_row("Cohen's κ", agreement.kappa))
    return rows


class MeanRow(BaseModel):
    """One estimate of the people's mean, with its interval placed on the scale (percent of its width)."""

    name: str
    value: str
    interval: str
    items: int | None
    method: str
    left: float = 0.0
    width: float = 0.0
    dot: float | None = None


class HumanScaleView(BaseModel):
    evaluator: str
    scale: str
    rows: list[MeanRow]
    reason: str
    n_labelled: int
    n_unlabelled: int


def _place(x: float, scale: tuple[float, float]) -> float:
    """Where ``x`` lies on the scale, in percent of its width."""
    low, high = scale
    return round(100 * (x - low) / (high - low), 2)


def _mean_row(
    name: str, estimate: MeanEstimate | None, scale: tuple[float, float], confidence: float
) -> MeanRow:
    if estimate is None:
        return MeanRow(name=name, value="—", interval="", items=None, method="")
    row = MeanRow(
        name=name,
        value=formatting.score(estimate.value),
        interval="",
        items=estimate.n,
        method=f"{round(confidence * 100)}% CI, {METHODS.get(estimate.method, estimate.method)}",
        dot=_place(estimate.value, scale),
    )
    if estimate.ci_low is None or estimate.ci_high is None:
        return row
    left, right = _place(estimate.ci_low, scale), _place(estimate.ci_high, scale)
    return row.model_copy(
        update={
            "interval": f"[{formatting.score(estimate.ci_low)}, {formatting.score(estimate.ci_high)}]",
            "left": left,
            "width": right - left,
        }
    )


def _human_scale(evaluator: str, result: PredictionPoweredMean) -> HumanScaleView:
    low, high = result.scale
    return HumanScaleView(
        evaluator=evaluator,
        scale=f"[{low:g}, {high:g}]",
        rows=[
            _mean_row(
                "Prediction-powered (judge corrected by labels)",
                result.estimate,
                result.scale,
                result.confidence,
            ),
            _mean_row("Judge only", result.judge_only, result.scale, result.confidence),
            _mean_row("Labels only", result.labels_only, result.scale, result.confidence),
        ],
        reason=result.reason,
        n_labelled=result.n_labelled,
        n_unlabelled=result.n_unlabelled,
    )


def human_scale_views(report: CalibrationReport) -> list[HumanScaleView]:
    """The report's people's-scale means, the calibrated evaluator first."""
    return [_human_scale(name, result) for name, result in report.human_scale.items()]
