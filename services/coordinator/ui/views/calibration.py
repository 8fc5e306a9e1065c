"""The calibration page's view model: each agreement statistic as one row (name, value, interval,
method, or why it is missing), so the template shows every number with its interval."""

from __future__ import annotations

from pydantic import BaseModel

from services.coordinator.ui.views import formatting
from shared.contracts.agreement import BinaryAgreement, Estimate, OrdinalAgreement
from shared.contracts.calibration import Agreement

METHODS = {
    "wilson": "Wilson",
    "fce_adjusted_wald": "adjusted Wald (Fleiss-Cohen-Everitt)",
    "fisher_z_jackknife": "Fisher z, jackknife SE",
    "fisher_z_bonett_wright": "Fisher z, Bonett-Wright SE",
    "paired_jackknife_t": "paired jackknife, t",
    "paired_bootstrap_percentile": "paired bootstrap percentile",
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
