"""A terminal-sized view of a comparison report: the verdict, the task code of both runs (a warning when
one mixes code), the items that broke (must-pass ones first), the metrics (with what each could have
detected), then per-category deltas."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text

from shared.analysis import (
    ERROR_RATE_METRIC,
    LATENCY_METRIC,
    change_row,
    code_header,
    direction_arrow,
    fmt_mde,
    latency_note,
    mixed_code_warnings,
)
from yardstick.api.comparison_report import ComparisonReport, MetricResult

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
        "p (adj.)",
        "test",
        "MDE 80%",
        "status",
    ):
        table.add_column(column, justify="left" if column in ("metric", "test", "status") else "right")
    for r in report.metrics:
        c = r.comparison
        table.add_row(
            f"{r.metric} {direction_arrow(r)}" + ("" if r.role == "primary" else " [dim](secondary)[/dim]"),
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
    if (latency := latency_note(report)) is not None:
        text.append(f"  {latency}\n", style="dim")
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
            if r.metric in metrics and (r.comparison.delta or r.status in ("regression", "improvement")):
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


def _changes(report: ComparisonReport) -> Table | Text:
    """The broken items (must-pass first) and the fixed ones, each with why it fails."""
    if not report.broken_items and not report.fixed_items:
        return Text("No item that passed in the baseline fails in the candidate.", style="green")
    title = f"{report.broken_total} broken, {report.fixed_total} fixed (item, metric)"
    table = Table(title=title, title_justify="left")
    for column in ("item", "metric", "must-pass", "baseline → candidate", "change", "why"):
        table.add_column(column, overflow="fold")
    for c in [*report.broken_items, *report.fixed_items]:
        item, metric, must, values, change, why = change_row(c)
        style = "bold red" if c.gates else ("red" if c.change == "broken" else "green")
        table.add_row(item.strip("`"), metric, must, values, Text(change, style=style), why)
    return table


def comparison_view(report: ComparisonReport) -> Group:
    """Verdict, broken items, overall table, per-category deltas (changed rows only), verdict again."""
    scores = {r.metric for r in report.metrics if _headline(r)}
    style = "bold red" if report.regression else ("bold yellow" if report.inconclusive else "bold green")
    parts: list[Table | Text] = [Text(f"Verdict: {report.verdict}", style=style)]
    if (code := code_header(report.baseline_code, report.candidate_code)) is not None:
        parts.append(Text(code))
    parts += [
        Text(f"⚠ {w}", style="bold yellow")
        for w in mixed_code_warnings(report.baseline_code, report.candidate_code)
    ]
    parts += [
        _changes(report),
        _overall(report),
        _reasons(report),
    ]
    for key in ("category", "query_type"):  # retrieval items carry both, with the same values
        table = _breakdown(report, key, scores - {LATENCY_METRIC, ERROR_RATE_METRIC})
        if table is not None:
            parts.append(table)
            break
    parts.append(Text(f"Verdict: {report.headline or report.verdict}", style=style))
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
