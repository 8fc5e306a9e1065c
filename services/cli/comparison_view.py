"""A terminal-sized view of a comparison report: the verdict, the task code of both runs (a warning when
one mixes code), the items that broke (must-pass ones first), the metrics (with what each could have
detected), then per-category deltas.

Rules: a sentence two or more "not significant" metrics would repeat (the conditions of their MDE,
why they cannot be significant whatever the signs of their changes) is printed once under the
reasons, each metric keeping its own numbers (a lone one keeps its whole sentence); the full
sentences are in ``--format md``. ``compact`` (the demo) says the verdict once (its headline) and
shows per-category rows only for a category that regressed or improved, else one line saying how
to see them; it also lists at most ``COMPACT_ROWS`` broken items and metrics (those that moved,
then the primary ones) and leaves each metric's reason to the detail command it names."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text

from shared.analysis import (
    DEFAULT_POWER,
    ERROR_RATE_METRIC,
    LATENCY_METRIC,
    change_row,
    code_header,
    describe_mde,
    direction_arrow,
    fmt_mde,
    latency_note,
    mixed_code_warnings,
)
from yardstick.api.comparison_report import ComparisonReport, MetricResult

STATUS_STYLE = {"regression": "bold red", "improvement": "green", "insufficient_data": "bold yellow"}
VERDICTS = ("regression", "improvement")
_STUCK = "; it cannot be significant whatever the signs of its changes"
MDE_NOTE = (
    f"could detect: the change its test would find with {DEFAULT_POWER:.0%} power at this n, at alpha "
    "divided by the number of metrics it is corrected with (`yardstick plan` sizes a dataset for a change)"
)
STUCK_NOTE = (
    "†: cannot be significant whatever the signs of its changes (the smallest p-value its test can give "
    "on these pairs is above its level), so it leaves the multiple-testing correction"
)


def _num(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "-"
    return f"{value:+.3f}" if signed else f"{value:.3f}"


def _status(result: MetricResult) -> Text:
    return Text(result.status, style=STATUS_STYLE.get(result.status, ""))


COMPACT_ROWS = 5
"""How many broken items and metrics the compact view (the demo's) lists; the rest are one command away."""


def _detail_command(report: ComparisonReport) -> str:
    return f"`yardstick compare {report.baseline_name} {report.candidate_name} --format md`"


def _shown_metrics(report: ComparisonReport, compact: bool) -> list[MetricResult]:
    """Every metric, or with ``compact`` those that regressed or improved, then the primary ones, at
    most ``COMPACT_ROWS``."""
    if not compact:
        return list(report.metrics)
    moved = [r for r in report.metrics if r.status in VERDICTS]
    primary = [r for r in report.metrics if r.role == "primary" and r not in moved]
    return (moved + primary)[:COMPACT_ROWS]


def _overall(report: ComparisonReport, compact: bool = False) -> Table:
    shown = _shown_metrics(report, compact)
    hidden = len(report.metrics) - len(shown)
    table = Table(
        title=f"{report.baseline_name} → {report.candidate_name} ({report.n_pairs} paired items)",
        caption=f"{hidden} more metric(s), each one's reason and the per-category rows: "
        f"{_detail_command(report)}"
        if compact
        else None,
    )
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
    for r in shown:
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


def folded_reason(result: MetricResult) -> tuple[str, bool, bool]:
    """``result.reason`` without the clauses every "not significant" metric repeats, its own numbers
    kept: (the short reason, whether it dropped the MDE's conditions, whether it cannot be significant)."""
    reason, stuck, mde = result.reason, False, False
    if result.status != "no_significant_change":
        return reason, False, False
    if _STUCK in reason:
        reason, stuck = reason.split(_STUCK, 1)[0], True
    if result.mde is not None and result.mde.effect is not None:
        clause = "; " + describe_mde(result.mde, result.family_size or 1)
        if clause in reason:
            reason, mde = reason.replace(clause, f"; could detect ±{result.mde.effect:.3g}"), True
    return reason + (" †" if stuck else ""), mde, stuck


def _reasons(report: ComparisonReport) -> Text:
    """Why each metric got its status, one line each, under the table; the sentences they share once."""
    text = Text("Why:\n", style="bold")
    folded = [folded_reason(r) for r in report.metrics]
    if sum(1 for _, mde, stuck in folded if mde or stuck) < 2:  # nothing repeats: every sentence in place
        folded = [(r.reason, False, False) for r in report.metrics]
    notes: set[str] = set()
    for r, (reason, mde, stuck) in zip(report.metrics, folded, strict=True):
        notes |= {note for note, used in ((MDE_NOTE, mde), (STUCK_NOTE, stuck)) if used}
        text.append(f"  {r.metric}: ", style=STATUS_STYLE.get(r.status, ""))
        text.append(f"{reason}\n")
    for note in (MDE_NOTE, STUCK_NOTE):
        if note in notes:
            text.append(f"  {note}\n", style="dim")
    for g in report.gates:
        text.append(f"  gate {g.gate}: ", style="green" if g.passed else "bold red")
        text.append(f"{g.reason}\n")
    if (latency := latency_note(report)) is not None:
        text.append(f"  {latency}\n", style="dim")
    return text


def _breakdown(report: ComparisonReport, key: str, metrics: set[str], compact: bool) -> Table | Text | None:
    """One row per value and metric that changed (with ``compact``: that regressed or improved; when
    none did, one line saying where every row is)."""
    groups = [b for b in report.breakdowns if b.key == key]
    rows = [
        (group, r)
        for group in groups
        for r in group.metrics
        if r.metric in metrics and (r.status in VERDICTS or (not compact and r.comparison.delta))
    ]
    every_row = _detail_command(report)
    if not rows:  # the compact view's metrics caption names where every row is
        return None
    table = Table(title=f"per {key}", caption=f"the other rows: {every_row}" if compact else None)
    for column in ("value", "n", "metric", "baseline", "candidate", "delta", "status"):
        table.add_column(
            column, justify="right" if column in ("n", "baseline", "candidate", "delta") else "left"
        )
    for group, r in rows:
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
    return table


def _headline(result: MetricResult) -> bool:
    """Broken down by group: the metrics that decide whether an item passes, and any that moved."""
    gates = result.spec is not None and result.spec.criterion.gates
    return gates or result.status in VERDICTS


def _changes(report: ComparisonReport, compact: bool = False) -> Table | Text:
    """The broken items (must-pass first) and the fixed ones, each with why it fails (with
    ``compact``: the first ``COMPACT_ROWS``)."""
    if not report.broken_items and not report.fixed_items:
        return Text("No item that passed in the baseline fails in the candidate.", style="green")
    title = f"{report.broken_total} broken, {report.fixed_total} fixed (item, metric)"
    changes = [*report.broken_items, *report.fixed_items]
    shown = changes[:COMPACT_ROWS] if compact else changes
    rest = report.broken_total + report.fixed_total - len(shown)
    caption = f"{rest} more: {_detail_command(report)}" if compact and rest > 0 else None
    table = Table(title=title, title_justify="left", caption=caption)
    for column in ("item", "metric", "must-pass", "baseline → candidate", "change", "why"):
        table.add_column(column, overflow="fold")
    for c in shown:
        item, metric, must, values, change, why = change_row(c)
        style = "bold red" if c.gates else ("red" if c.change == "broken" else "green")
        table.add_row(item.strip("`"), metric, must, values, Text(change, style=style), why)
    return table


def comparison_view(report: ComparisonReport, compact: bool = False) -> Group:
    """Verdict, broken items, overall table, per-category deltas (changed rows only), verdict again;
    with ``compact`` the verdict's headline once and only the category rows that regressed or improved."""
    scores = {r.metric for r in report.metrics if _headline(r)}
    style = "bold red" if report.regression else ("bold yellow" if report.inconclusive else "bold green")
    headline = f"Verdict: {report.headline or report.verdict}"
    parts: list[Table | Text] = [Text(headline if compact else f"Verdict: {report.verdict}", style=style)]
    if (code := code_header(report.baseline_code, report.candidate_code)) is not None:
        parts.append(Text(code))
    parts += [
        Text(f"⚠ {w}", style="bold yellow")
        for w in mixed_code_warnings(report.baseline_code, report.candidate_code)
    ]
    parts += [_changes(report, compact), _overall(report, compact)]
    if not compact:  # the compact view's table caption says where the reasons are
        parts.append(_reasons(report))
    for key in ("category", "query_type"):  # retrieval items carry both, with the same values
        table = _breakdown(report, key, scores - {LATENCY_METRIC, ERROR_RATE_METRIC}, compact)
        if table is not None:
            parts.append(table)
            break
    if not compact:  # the compact view says it once, at the top (the table has each metric's part)
        parts.append(Text(headline, style=style))
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
