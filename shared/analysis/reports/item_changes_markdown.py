"""The broken (and fixed) items of a comparison as markdown: the first thing a report shows, since
"did my change break something?" is answered by named items before any mean."""

from __future__ import annotations

from yardstick.api.comparison_report import ComparisonReport, ItemChange


def _cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _value(x: float | None) -> str:
    return "not measured" if x is None else f"{x:.3g}"


def _passes(c: ItemChange) -> str:
    if c.trials == 1:
        return f"{_value(c.baseline)} → {_value(c.candidate)}"
    test = "" if c.p_adjusted is None else f", p(adj) {c.p_adjusted:.3g}"
    return f"{c.baseline_passes}/{c.trials} → {c.candidate_passes}/{c.trials} passed{test}"


def change_row(c: ItemChange) -> list[str]:
    """Item, metric, must-pass mark, values (or pass counts with trials), significance, reason."""
    if c.trials == 1:
        verdict = "broke" if c.change == "broken" else "fixed"
    else:
        verdict = "significant" if c.significant else "within chance (flaky)"
    return [
        f"`{_cell(c.item_id)}`",
        _cell(c.metric),
        "yes" if c.must_pass else "",
        _passes(c),
        verdict,
        _cell((c.reason or "")[:200]),
    ]


def _table(changes: list[ItemChange]) -> list[str]:
    header = ["Item", "Metric", "Must-pass", "Baseline → candidate", "Change", "Why"]
    return [
        "| " + " | ".join(header) + " |",
        "| " + " | ".join(["---"] * len(header)) + " |",
        *("| " + " | ".join(change_row(c)) + " |" for c in changes),
    ]


def item_change_lines(report: ComparisonReport) -> list[str]:
    """'## Broken items' (must-pass ones first) and '## Fixed items', or one line saying none broke."""
    if not report.broken_items and not report.fixed_items:
        return [
            "",
            "## Broken items",
            "",
            "None: no item that passed in the baseline fails in the candidate.",
        ]
    out = ["", f"## Broken items ({report.broken_total})", ""]
    if report.must_pass_broken:
        out += [f"**Must-pass items broken (fail the comparison)**: {', '.join(report.must_pass_broken)}", ""]
    if report.broken_items:
        out += _table(report.broken_items)
        if report.broken_total > len(report.broken_items):
            out += [
                "",
                f"({report.broken_total - len(report.broken_items)} more in the JSON report's totals)",
            ]
    else:
        out.append("None.")
    if report.fixed_items:
        out += ["", f"## Fixed items ({report.fixed_total})", "", *_table(report.fixed_items)]
    return out


def latency_note(report: ComparisonReport) -> str | None:
    """How the two runs' latencies were measured, when the report knows (None: it does not)."""
    if report.latency_interleaved is None or not any(r.metric == "latency_ms" for r in report.metrics):
        return None
    if report.latency_interleaved:
        return "latency_ms was measured interleaved: both runs in the same minutes, on the same machine"
    return (
        "latency_ms was measured in two runs apart in time: a difference may be the machine's load; "
        "`yardstick run --baseline X --interleave` runs both side by side"
    )
