"""A terminal-sized view of a comparison report: overall metrics (with what each could have detected),
then per-category deltas."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text

from shared.analysis.metric_specs import ERROR_RATE_METRIC, LATENCY_METRIC
from shared.contracts.comparison_report import ComparisonReport, MetricResult
from shared.reports.markdown import direction_arrow, fmt_mde

STATUS_STYLE = {"regression": "bold red", "improvement": "green", "insufficient_data": "bold yellow"}


def _num(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "-"
    return f"{value:+.3f}" if signed else f"{value:.3f}"


def _status(result: MetricResult) -> Text:
    return Text(result.status, style=STATUS_STYLE.get(result.status, ""))


def _overall(report: ComparisonReport) -> Table:
    table = Table(title=f"{report.baseline_name} → {report.candidate_name} ({report.n_pairs} paired items)")
    for column in (
        "metric",
        "baseline",
        "candidate",
        "delta",
        "95% CI of delta",
        "p (Holm)",
        "test",
        "MDE 80%",
        "status",
    ):
        table.add_column(column, justify="left" if column in ("metric", "test", "status") else "right")
    for r in report.metrics:
        c = r.comparison
        table.add_row(
            f"{r.metric} {direction_arrow(r)}",
            _num(c.baseline.mean),
            _num(c.candidate.mean),
            _num(c.delta, signed=True),
            f"[{_num(c.delta_ci_low, True)}, {_num(c.delta_ci_high, True)}]",
            "-" if r.p_adjusted is None else f"{r.p_adjusted:.3f}",
            c.test or "-",
            fmt_mde(r, brief=True),  # n and alpha: in the reasons below
            _status(r),
        )
    return table


def _reasons(report: ComparisonReport) -> Text:
    """Why each metric got its status, one line each, under the table."""
    text = Text("Why:\n", style="bold")
    for r in report.metrics:
        text.append(f"  {r.metric}: ", style=STATUS_STYLE.get(r.status, ""))
        text.append(f"{r.reason}\n")
    for g in report.gates:
        text.append(f"  gate {g.gate}: ", style="green" if g.passed else "bold red")
        text.append(f"{g.reason}\n")
    return text


def _breakdown(report: ComparisonReport, key: str, metrics: set[str]) -> Table | None:
    rows = [b for b in report.breakdowns if b.key == key]
    if not rows:
        return None
    table = Table(title=f"per {key}")
    for column in ("value", "n", "metric", "baseline", "candidate", "delta", "status"):
        table.add_column(
            column, justify="right" if column in ("n", "baseline", "candidate", "delta") else "left"
        )
    for group in rows:
        for r in group.metrics:
            if r.metric in metrics and (r.comparison.delta or r.status in STATUS_STYLE):
                c = r.comparison
                table.add_row(
                    group.value,
                    str(group.n_pairs),
                    r.metric,
                    _num(c.baseline.mean),
                    _num(c.candidate.mean),
                    _num(c.delta, signed=True),
                    _status(r),
                )
    return table if table.row_count else None


def _headline(result: MetricResult) -> bool:
    """Broken down by group: the metrics that decide whether an item passes, and any that moved."""
    gates = result.spec is not None and result.spec.criterion.gates
    return gates or result.status in ("regression", "improvement")


def comparison_view(report: ComparisonReport) -> Group:
    """Overall table, per-category/query-type deltas of the score metrics (changed rows only), verdict."""
    scores = {r.metric for r in report.metrics if _headline(r)}
    parts: list[Table | Text] = [_overall(report), _reasons(report)]
    for key in ("category", "query_type"):  # retrieval items carry both, with the same values
        table = _breakdown(report, key, scores - {LATENCY_METRIC, ERROR_RATE_METRIC})
        if table is not None:
            parts.append(table)
            break
    style = "bold red" if report.regression else ("bold yellow" if report.inconclusive else "bold green")
    parts.append(Text(f"Verdict: {report.verdict}", style=style))
    if report.underpowered:
        parts.append(
            Text(
                f"⚠ too few items to detect any change in {', '.join(report.underpowered)}: "
                "no outcome of their test could be significant, so a regression gate cannot fail on "
                "them; `yardstick plan` says how many items a change needs",
                style="bold yellow",
            )
        )
    return Group(*parts)
