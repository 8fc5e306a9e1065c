"""`yardstick calibrate QUEUE --evaluator E`: how well an evaluator agrees with people's labels, and the
people's mean read from its scores corrected by those labels (prediction-powered, beside the judge
alone and the labels alone)."""

from __future__ import annotations

import typer
from rich.table import Table

from services.cli.consoles import stderr_console, stdout_console
from services.cli.coordinator import ApiError, connect, fail
from yardstick.api.agreement import BinaryAgreement, Estimate, OrdinalAgreement
from yardstick.api.calibration import Agreement
from yardstick.api.prediction_powered import MeanEstimate, PredictionPoweredMean


def _cell(estimate: Estimate) -> tuple[str, str]:
    if estimate.value is None:
        return "n/a", estimate.reason or ""
    if estimate.ci_low is None or estimate.ci_high is None:
        return f"{estimate.value:.3f}", estimate.reason or ""
    return f"{estimate.value:.3f}", f"[{estimate.ci_low:.3f}, {estimate.ci_high:.3f}] {estimate.method}"


def _table(title: str, agreement: Agreement) -> Table:
    table = Table(
        "statistic", "value", "95% interval", title=f"{title} (n = {agreement.n})", title_justify="left"
    )
    rows: list[tuple[str, Estimate]] = [("agreement", agreement.observed_agreement)]
    if isinstance(agreement, BinaryAgreement):
        rows += [
            ("Cohen's kappa", agreement.kappa),
            ("true-positive rate", agreement.true_positive_rate),
            ("true-negative rate", agreement.true_negative_rate),
        ]
    elif isinstance(agreement, OrdinalAgreement):
        rows += [
            (f"weighted kappa ({agreement.weights})", agreement.weighted_kappa),
            ("Cohen's kappa", agreement.kappa),
            ("Spearman's rho", agreement.spearman),
        ]
    else:
        rows.append(("Cohen's kappa", agreement.kappa))
    for name, estimate in rows:
        table.add_row(name, *_cell(estimate))
    return table


def _mean_row(name: str, estimate: MeanEstimate | None) -> tuple[str, str, str, str]:
    if estimate is None:
        return name, "n/a", "", ""
    interval = (
        ""
        if estimate.ci_low is None or estimate.ci_high is None
        else f"[{estimate.ci_low:.3f}, {estimate.ci_high:.3f}] {estimate.method}"
    )
    return name, f"{estimate.value:.3f}", interval, str(estimate.n)


def _human_scale_table(field: str, evaluator: str, result: PredictionPoweredMean) -> Table:
    low, high = result.scale
    title = (
        f"people's mean of {field} on [{low:g}, {high:g}], from {evaluator} and {result.n_labelled} labels"
    )
    table = Table(
        "estimate",
        "value",
        f"{round(result.confidence * 100)}% interval",
        "items",
        title=title,
        title_justify="left",
        min_width=len(title),
    )
    table.add_row(*_mean_row("prediction-powered (PPI)", result.estimate))
    table.add_row(*_mean_row("judge only", result.judge_only))
    table.add_row(*_mean_row("labels only", result.labels_only))
    return table


def calibrate_command(
    queue: str = typer.Argument(..., help="The review queue (name or id)"),
    evaluator: str | None = typer.Option(None, help="The evaluator to check against the labels"),
    field: str | None = typer.Option(None, help="The rubric field (default: the first pass/fail or scale)"),
    against: str | None = typer.Option(None, help="A second evaluator, compared with the first"),
) -> None:
    """An evaluator against people's labels (kappa with its interval, TPR/TNR or weighted kappa and
    rho), beside the reviewers' own agreement, the people's mean estimated from the evaluator's scores
    corrected by the labels (prediction-powered inference), and the items where they disagree."""
    try:
        report = connect().review.calibration(queue, evaluator=evaluator, field=field, against=against)
    except ApiError as exc:
        raise fail(exc) from exc
    out, err = stdout_console(), stderr_console()
    if report.judge_vs_human is not None:
        out.print(_table(f"{report.evaluator} vs people on {report.field}", report.judge_vs_human))
    if report.between_reviewers is not None:
        out.print(_table(f"between reviewers on {report.field}", report.between_reviewers))
    if report.comparison is not None:
        out.print(report.comparison.verdict)
    for name, result in report.human_scale.items():
        out.print(_human_scale_table(report.field, name, result))
        out.print(result.reason)
    if report.human_scale and report.population:
        out.print(f"population: {report.population}")
    if report.disagreements:
        table = Table(
            "item",
            "people",
            "evaluator",
            "score",
            title=f"disagreements ({report.disagreement_count}), worst first",
            title_justify="left",
        )
        for d in report.disagreements[:20]:
            table.add_row(
                f"#{d.position} {d.title}",
                str(d.human),
                str(d.evaluator),
                "n/a" if d.score is None else f"{d.score:.3g}",
            )
        out.print(table)
    for note in report.notes:
        err.print(f"[yellow]{note}[/yellow]")
    if report.judge_vs_human is None and report.evaluator is None:
        err.print(
            f"evaluators that scored these items: {', '.join(report.evaluators) or 'none'} "
            "(choose one with --evaluator)"
        )
