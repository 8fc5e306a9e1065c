"""Markdown reports: a comparison (the regression report's table) and a single experiment."""

from __future__ import annotations

from shared.analysis.pass_rule import stored_policy
from shared.analysis.reports.code_fingerprints import code_header, mixed_code_warnings, shown
from shared.analysis.reports.item_changes_markdown import item_change_lines, latency_note
from shared.analysis.reports.pairwise_markdown import pairwise_lines
from shared.analysis.reports.spend_markdown import spend_lines
from yardstick.api.comparison_report import ComparisonReport, MetricResult
from yardstick.api.gates import GateResult
from yardstick.api.run_aggregates import ExperimentAggregates
from yardstick.api.run_data import RunData

_STATUS = {
    "regression": "🔴 regression",
    "improvement": "🟢 improvement",
    "no_significant_change": "⚪ no significant change",
    "insufficient_data": "⚫ insufficient data",
    "informational": "🔵 informational",
}
_ARROW = {"higher_is_better": "↑", "lower_is_better": "↓", "informational": "·"}


def direction_arrow(r: MetricResult) -> str:
    """↑ higher is better, ↓ lower is better, · informational: the metric's spec, as every view shows it."""
    return _ARROW[r.direction]


def fmt_mde(r: MetricResult, *, brief: bool = False) -> str:
    """'±0.133 (n=25, alpha=0.05)': the change the test would have caught with 80 % power; 'none' when
    no change could have been; '-' for reports from before it was computed. ``brief``: the effect
    alone (a table cell whose title says the rest)."""
    m = r.mde
    if m is None:
        return "-"
    effect = "none" if m.effect is None else f"±{fmt_num(m.effect)}"
    return effect if brief else f"{effect} (n={m.n_pairs}, alpha={m.alpha:.2g})"


_TEST_LABEL = {
    "paired_bootstrap": "bootstrap",
    "mcnemar_exact": "McNemar",
    "sign_flip_exact": "exact sign-flip",
    "sign_flip_monte_carlo": "Monte Carlo sign-flip",
}
_MAX_LISTED = 20


def fmt_num(x: float | None, signed: bool = False) -> str:
    """3 decimals below 100, 1 above (latency in ms); '-' when missing."""
    if x is None:
        return "-"
    spec = ".1f" if abs(x) >= 100 else ".3f"
    return format(x, ("+" if signed else "") + spec)


def fmt_p(p: float | None) -> str:
    if p is None:
        return "-"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def cell(text: str) -> str:
    """Text safe inside a markdown table cell."""
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    return [_row(header), _row(["---"] * len(header)), *(_row(r) for r in rows)]


def _metric_row(r: MetricResult, label: str) -> list[str]:
    c = r.comparison
    arrow = direction_arrow(r)
    delta = fmt_num(c.delta, signed=True)
    if c.delta_ci_low is not None:
        delta += f" [{fmt_num(c.delta_ci_low)}, {fmt_num(c.delta_ci_high)}]"
    pct = "-" if c.delta_pct is None else f"{c.delta_pct:+.1f}%"
    test = f" ({_TEST_LABEL[c.test]})" if c.test else ""
    effect = f"d={fmt_num(c.cohens_d)}, dz={fmt_num(c.cohens_dz)}"
    return [
        cell(f"{label} {arrow}"),
        fmt_num(c.baseline.mean),
        fmt_num(c.candidate.mean),
        delta,
        pct,
        fmt_p(r.p_adjusted) + test,
        effect,
        _STATUS[r.status],
    ]


_MULTIPLICITY = {
    "westfall_young": "Primary metrics (they gate) are one family and secondary ones (marked, "
    "exploratory) another; p-values are adjusted within each by Westfall-Young step-down min-P over "
    "joint sign-flip resamples, so metrics that measure the same thing cost little power.",
    "holm": "Primary metrics (they gate) are one family and secondary ones (marked, exploratory) another; "
    "p-values are Holm-adjusted within each, with Tarone's refinement.",
}


def _label(r: MetricResult) -> str:
    return r.metric if r.role == "primary" else f"{r.metric} (secondary)"


_HEADER = ["Metric", "Baseline", "Candidate", "Delta [95% CI]", "Delta %", "p-value", "Effect Size", "Status"]
"""The retrieval-regression report's table, as its requirement spells it; the MDE has its own table."""


def _power_table(report: ComparisonReport) -> list[str]:
    rows = [
        [cell(r.metric), str(r.mde.n_pairs), _TEST_LABEL[r.mde.test], f"{r.mde.alpha:.3g}", fmt_mde(r)]
        for r in report.metrics
        if r.mde is not None
    ]
    if not rows:
        return []
    return [
        "",
        "## What each test could have detected",
        "",
        "MDE: the smallest true change of the mean the test would find significant with 80% power, at "
        "alpha = alpha / the metric's family size (the level a lone change must reach, so conservative "
        "when several metrics change); 'none': too few items for any change. Metrics that cannot be "
        "significant whatever the signs of their changes (e.g. no discordant pair) leave the Holm "
        "family (Tarone), so the others keep their power.",
        "",
        *_table(["Metric", "Pairs", "Test", "alpha", "MDE (80% power)"], rows),
    ]


def _spec_differences(report: ComparisonReport) -> list[str]:
    if not report.spec_differences:
        return []
    return [
        "",
        "**Metrics that mean something else in each run** (their comparison may compare unlike things):",
        "",
        *[f"- {cell(m)}: {cell('; '.join(what))}" for m, what in report.spec_differences.items()],
    ]


def _code_lines(baseline: list[str], candidate: list[str]) -> list[str]:
    header = code_header(baseline, candidate)
    lines = [] if header is None else [f"- {header}"]
    return lines + [f"- ⚠ {w}" for w in mixed_code_warnings(baseline, candidate)]


def comparison_markdown(report: ComparisonReport) -> str:
    """The comparison table plus summary, regressions, per-category deltas and run scores."""
    out = [
        "# Eval Comparison Report",
        "",
        f"- **Baseline**: {cell(report.baseline_name)} (`{report.baseline_id}`)",
        f"- **Candidate**: {cell(report.candidate_name)} (`{report.candidate_id}`)",
        f"- **Verdict**: {cell(report.verdict)}",
        f"- Paired items: {report.n_pairs}; unmatched: {len(report.unmatched_baseline)} baseline-only, "
        f"{len(report.unmatched_candidate)} candidate-only; errors: {report.errors.baseline} → "
        f"{report.errors.candidate}",
        *_code_lines(report.baseline_code, report.candidate_code),
        *item_change_lines(report),
        "",
        "## Metrics",
        "",
        *_table(_HEADER, [_metric_row(r, _label(r)) for r in report.metrics]),
        "",
        f"{_MULTIPLICITY[report.config.multiplicity]} Raw p-values are in the JSON report. "
        "0/1 metrics use the exact McNemar test, others the exact sign-flip test up to 16 pairs and a "
        "Monte Carlo sign-flip test beyond; the delta's interval is the bootstrap percentile interval, "
        "not adjusted for the number of metrics. d = pooled Cohen's d, dz = paired effect size. "
        "↑ higher is better, ↓ lower is better, · informational (each metric's spec says which).",
        *_spec_differences(report),
        "",
        "## Why each verdict",
        "",
        *[f"- **{cell(r.metric)}** ({r.status.replace('_', ' ')}): {cell(r.reason)}" for r in report.metrics],
        *_gates(report.gates),
        *(["", f"_{note}_"] if (note := latency_note(report)) else []),
        *_underpowered(report),
        *_power_table(report),
    ]
    counts = {s: sum(r.status == s for r in report.metrics) for s in _STATUS}
    out += [
        "",
        "## Summary",
        "",
        f"- **Regressions**: {counts['regression']}",
        f"- **Improvements**: {counts['improvement']}",
        f"- **No significant change**: {counts['no_significant_change']}",
        f"- **Insufficient data** (too few items to detect any change): {counts['insufficient_data']}",
    ]
    regressed = [r for r in report.metrics if r.status == "regression" and r.role == "primary"]
    if regressed:
        out += ["", "### ⚠️ Regressions Detected", ""]
        for r in regressed:
            c = r.comparison
            pct = "" if c.delta_pct is None else f"{c.delta_pct:+.1f}%, "
            out.append(
                f"- **{cell(r.metric)}**: {pct}delta {fmt_num(c.delta, signed=True)} "
                f"(threshold {fmt_num(r.threshold, signed=True)}, adjusted p {fmt_p(r.p_adjusted)})"
            )
    if report.breakdowns:
        out += ["", "## Per-category deltas", "", "Holm-corrected within each breakdown key.", ""]
        rows = [
            [cell(f"{b.key}={b.value}"), str(b.n_pairs), *_metric_row(r, r.metric)]
            for b in report.breakdowns
            for r in b.metrics
        ]
        out += _table(["Group", "n", *_HEADER], rows)
    if report.run_scores:
        out += ["", "## Run-level scores (one value per run, not tested)", ""]
        out += _table(
            ["Score", "Baseline", "Candidate", "Delta"],
            [
                [cell(s.name), fmt_num(s.baseline), fmt_num(s.candidate), fmt_num(s.delta, signed=True)]
                for s in report.run_scores
            ],
        )
    for side, keys in (("baseline", report.unmatched_baseline), ("candidate", report.unmatched_candidate)):
        if keys:
            listed = ", ".join(f"`{k.item_id}`#{k.trial}" for k in keys[:_MAX_LISTED])
            more = f" (+{len(keys) - _MAX_LISTED} more)" if len(keys) > _MAX_LISTED else ""
            out += ["", f"Only in {side}: {listed}{more}"]
    out += pairwise_lines(report.pairwise)
    out += spend_lines([("baseline", report.baseline_spend), ("candidate", report.candidate_spend)])
    return "\n".join(out) + "\n"


def _underpowered(report: ComparisonReport) -> list[str]:
    if not report.underpowered:
        return []
    return [
        "",
        f"> ⚠️ **Too few items to detect any change** in {cell(', '.join(report.underpowered))}: no "
        "outcome of their test could reach alpha, so a regression gate cannot fail on them.",
    ]


def _gates(gates: list[GateResult]) -> list[str]:
    if not gates:
        return []
    lines = ["", "## Gates", ""]
    lines += [f"- {'✅ pass' if g.passed else '❌ FAIL'}: {cell(g.reason)}" for g in gates]
    return lines


def _criteria(a: ExperimentAggregates) -> str:
    gating = [f"{m} {c.describe()}" for m, c in a.pass_criteria.items() if c.gates]
    return ", ".join(gating) or "none"


def experiment_markdown(run: RunData, aggregates: ExperimentAggregates) -> str:
    """One experiment: headline numbers, per-metric table, breakdowns, run scores, failures."""
    a = aggregates
    rate = "-" if a.pass_rate is None else f"{a.pass_rate:.1%}"
    out = [
        f"# Experiment report: {cell(a.name)} (`{a.experiment_id}`)",
        "",
        f"- Items: {a.item_count} ({a.ok_count} ok, {a.error_count} errors)",
        f"- Pass rate: {rate} ({a.passed}/{a.item_count} passed, {a.not_measured} not measured; "
        f"criteria: {_criteria(a)})",
        f"- Latency ms: p50 {fmt_num(a.latency.p50)}, p95 {fmt_num(a.latency.p95)}, "
        f"p99 {fmt_num(a.latency.p99)} (n={a.latency.count})",
    ]
    if run.code_fingerprints:
        out.append(f"- Task code: {shown(run.code_fingerprints)}")
        out += [f"- ⚠ {w}" for w in mixed_code_warnings([], run.code_fingerprints)]
    if a.tokens:
        out.append(
            f"- Tokens: {a.tokens.total_tokens} total ({a.tokens.input_tokens} in, "
            f"{a.tokens.output_tokens} out) over {a.tokens.items_reporting} items"
        )
    if a.warnings:
        out += ["", "## Warnings", ""]
        out += [f"- ⚠ {cell(w.message)}" for w in a.warnings]
    out += spend_lines([("", a.spend)])
    out += _gates(a.gates)
    out += ["", "## Metrics", ""]
    out += _table(
        ["Metric", "Mean", "95% CI", "Median", "p95", "n", "None"],
        [
            [
                cell(name),
                fmt_num(m.mean),
                "-" if m.ci_low is None else f"[{fmt_num(m.ci_low)}, {fmt_num(m.ci_high)}] ({m.ci_method})",
                fmt_num(m.median),
                fmt_num(m.p95),
                str(m.count),
                str(m.none_count),
            ]
            for name, m in a.metrics.items()
        ],
    )
    names = list(a.metrics)
    for key, groups in a.breakdowns.items():
        out += ["", f"## By {cell(key)}", ""]
        out += _table(
            [cell(key), "Items", "Passed", "Pass rate", "Errors", *map(cell, names)],
            [
                [cell(v), str(g.count), str(g.passed), f"{g.pass_rate:.1%}", str(g.error_count)]
                + [fmt_num(g.metrics[n].mean) for n in names]
                for v, g in groups.items()
            ],
        )
    if a.run_scores:
        out += ["", "## Run-level scores", ""]
        out += _table(
            ["Score", "Value", "Comment"],
            [[cell(e.name), fmt_num(e.numeric), cell(e.comment or e.error or "")] for e in a.run_scores],
        )
    policy = stored_policy(a)
    failed = [i for i in run.items if not policy.passed(i)]
    if failed:
        out += ["", f"## Items that did not pass ({len(failed)})", ""]
        for i in failed[:_MAX_LISTED]:
            why = "; ".join(policy.reasons(i))
            out.append(f"- `{i.item_id}`#{i.trial} ({policy.outcome(i).replace('_', ' ')}): {cell(why)}")
        if len(failed) > _MAX_LISTED:
            out.append(f"- … {len(failed) - _MAX_LISTED} more")
    return "\n".join(out) + "\n"
