"""JUnit XML for CI: one testcase per compared metric, or per experiment item."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from shared.analysis.pass_rule import stored_policy
from shared.analysis.reports.item_changes_markdown import change_row
from shared.analysis.reports.markdown import fmt_mde, fmt_num, fmt_p
from yardstick.api.comparison_report import ComparisonReport, MetricResult
from yardstick.api.gates import GateResult
from yardstick.api.run_aggregates import ExperimentAggregates
from yardstick.api.run_data import RunData

# Characters XML 1.0 cannot carry at all (ElementTree escapes &<>" but passes these through).
_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _clean(text: str) -> str:
    return _INVALID_XML.sub("\ufffd", text)


def _sub(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
    el = ET.SubElement(parent, tag, {k: _clean(v) for k, v in attrs.items()})
    if text is not None:
        el.text = _clean(text)
    return el


def _serialise(root: ET.Element) -> str:
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _describe(r: MetricResult) -> str:
    c = r.comparison
    return (
        f"{r.metric} ({r.direction}): baseline {fmt_num(c.baseline.mean)} -> candidate "
        f"{fmt_num(c.candidate.mean)}, delta {fmt_num(c.delta, signed=True)} "
        f"[{fmt_num(c.delta_ci_low)}, {fmt_num(c.delta_ci_high)}], threshold "
        f"{fmt_num(r.threshold, signed=True)}, test {c.test or '-'}, p={fmt_p(c.p_value)}, "
        f"p_adj={fmt_p(r.p_adjusted)}, n_pairs={c.n_pairs}, dropped={c.n_dropped}, "
        f"mde_80%={fmt_mde(r)}; {r.status}: {r.reason}"
    )


def _metric_case(suite: ET.Element, classname: str, name: str, r: MetricResult, fail: bool) -> int:
    case = _sub(suite, "testcase", classname=classname, name=name, time="0")
    text = _describe(r)
    if r.status == "regression" and fail:
        _sub(case, "failure", text, message=f"{name} regressed", type="regression")
        return 1
    if r.status == "insufficient_data":
        _sub(
            case,
            "skipped",
            message=f"too few items to detect any change in {name} (n_pairs={r.comparison.n_pairs})",
        )
    _sub(case, "system-out", f"{r.status}: {text}")
    return 0


def _broken_suite(root: ET.Element, report: ComparisonReport) -> int:
    """One testcase per listed broken item: a failure when it is a must-pass item that broke (with
    trials: significantly), passing with the details otherwise; returns the failures."""
    suite = _sub(root, "testsuite", name="broken items")
    failures = 0
    for c in report.broken_items:
        case = _sub(suite, "testcase", classname=f"broken.{c.metric}", name=c.item_id, time="0")
        text = " | ".join(cell for cell in change_row(c) if cell)
        if c.gates:
            failures += 1
            _sub(
                case,
                "failure",
                text,
                message=f"must-pass item {c.item_id} broke on {c.metric}",
                type="broken",
            )
        else:
            _sub(case, "system-out", text)
    suite.attrib.update(tests=str(len(report.broken_items)), failures=str(failures), errors="0", skipped="0")
    return failures


def _gate_suite(root: ET.Element, gates: list[GateResult]) -> int:
    """One testcase per absolute gate (failure when it is missed); returns the failures."""
    suite = _sub(root, "testsuite", name="gates")
    failures = 0
    for gate in gates:
        case = _sub(suite, "testcase", classname="gates", name=gate.gate, time="0")
        if gate.passed:
            _sub(case, "system-out", gate.reason)
        else:
            failures += 1
            _sub(case, "failure", gate.reason, message=gate.reason[:200], type="gate")
    suite.attrib.update(tests=str(len(gates)), failures=str(failures), errors="0", skipped="0")
    return failures


def comparison_junit(report: ComparisonReport) -> str:
    """One testcase per overall metric (failure = a primary metric's regression), one per broken item
    (failure = a must-pass item broke), a breakdown suite and a gate suite.

    Breakdown regressions are failures only when the comparison was run with
    ``fail_on_breakdown``; otherwise they are reported in ``system-out``.
    """
    root = ET.Element("testsuites", name="yardstick comparison")
    suite = _sub(root, "testsuite", name=f"{report.baseline_name} -> {report.candidate_name}")
    props = _sub(suite, "properties")
    for key, value in (
        ("baseline_id", report.baseline_id),
        ("candidate_id", report.candidate_id),
        ("n_pairs", str(report.n_pairs)),
        ("verdict", report.verdict),
        ("inconclusive", str(report.inconclusive).lower()),
    ):
        _sub(props, "property", name=key, value=value)
    failures = sum(
        _metric_case(suite, "comparison", r.metric, r, r.role == "primary") for r in report.metrics
    )
    skipped = sum(r.status == "insufficient_data" for r in report.metrics)
    suite.attrib.update(
        tests=str(len(report.metrics)), failures=str(failures), errors="0", skipped=str(skipped)
    )
    total_tests, total_failures = len(report.metrics), failures
    if report.breakdowns:
        fail = report.config.fail_on_breakdown
        bsuite = _sub(root, "testsuite", name="breakdowns")
        cases = [(b, r) for b in report.breakdowns for r in b.metrics]
        bfail = sum(
            _metric_case(bsuite, f"breakdown.{b.key}", f"{b.key}={b.value}:{r.metric}", r, fail)
            for b, r in cases
        )
        bskipped = sum(r.status == "insufficient_data" for _, r in cases)
        bsuite.attrib.update(tests=str(len(cases)), failures=str(bfail), errors="0", skipped=str(bskipped))
        total_tests, total_failures = total_tests + len(cases), total_failures + bfail
    if report.broken_items:
        broken = _broken_suite(root, report)
        total_tests, total_failures = total_tests + len(report.broken_items), total_failures + broken
    if report.gates:
        gfail = _gate_suite(root, report.gates)
        total_tests, total_failures = total_tests + len(report.gates), total_failures + gfail
    root.attrib.update(tests=str(total_tests), failures=str(total_failures), errors="0")
    return _serialise(root)


def experiment_junit(run: RunData, aggregates: ExperimentAggregates) -> str:
    """One testcase per item: failure when it does not pass, error when the target call failed."""
    root = ET.Element("testsuites", name="yardstick experiment")
    suite = _sub(root, "testsuite", name=aggregates.name)
    props = _sub(suite, "properties")
    _sub(props, "property", name="experiment_id", value=aggregates.experiment_id)
    _sub(props, "property", name="pass_threshold", value=str(aggregates.pass_threshold))
    for metric, criterion in aggregates.pass_criteria.items():
        _sub(props, "property", name=f"pass_criterion.{metric}", value=criterion.describe())
    for warning in aggregates.warnings:
        _sub(props, "property", name=f"warning.{warning.kind}", value=warning.message)
    policy = stored_policy(aggregates)
    failures = skipped = 0
    for item in run.items:
        category = str(item.metadata.get("category", "uncategorized"))
        seconds = "0" if item.latency_ms is None else f"{item.latency_ms / 1000.0:.3f}"
        case = _sub(
            suite,
            "testcase",
            classname=f"{aggregates.name}.{category}",
            name=f"{item.item_id}#{item.trial}",
            time=seconds,
        )
        scores = ", ".join(f"{k}={fmt_num(v)}" for k, v in item.scores.items())
        if item.status == "error":
            _sub(case, "error", item.error or "", message=(item.error or "target error")[:200], type="error")
        elif (outcome := policy.outcome(item)) == "failed":
            failures += 1
            _sub(case, "failure", scores, message="; ".join(policy.reasons(item))[:200])
        elif outcome == "not_measured":
            skipped += 1
            _sub(case, "skipped", scores, message="not measured: no gating metric has a value")
        else:
            _sub(case, "system-out", scores)
    suite.attrib.update(
        tests=str(aggregates.item_count),
        failures=str(failures),
        errors=str(aggregates.error_count),
        skipped=str(skipped),
    )
    tests = aggregates.item_count
    if aggregates.gates:
        failures += _gate_suite(root, aggregates.gates)
        tests += len(aggregates.gates)
    root.attrib.update(tests=str(tests), failures=str(failures), errors=suite.attrib["errors"])
    return _serialise(root)
