"""Baseline vs candidate: the items that broke, paired per-metric tests adjusted within their family,
thresholds and gates, and the verdict.

Rules (also in the report's field descriptions):
- Items are paired by (item_id, trial); unmatched ones are listed on each side.
- Which metrics are compared, what each means here and which of them gate (the primary family):
  ``comparison_specs``. Each metric's status and its reason: ``metric_verdict``.
- Score metrics and ``latency_ms`` use only pairs where both items have status ``ok`` and both
  values are present (pairwise deletion, counted in ``n_dropped``). Errors are compared on
  their own as the lower-is-better metric ``error_rate`` (per-pair 0/1, exact McNemar).
- Test: exact McNemar when every paired value is 0/1, otherwise the exact sign-flip test up to
  16 pairs and the Monte Carlo sign-flip test beyond (``shared.analysis.stats.compare_paired``).
- Multiplicity: the primary metrics are one family and the secondary ones another, each adjusted by
  Westfall-Young step-down min-P over joint sign flips (``multiplicity="westfall_young"``, the
  default: correlated metrics cost little power; never below a metric's own p) or by Holm with
  Tarone's refinement (``"holm"``). Each breakdown key (e.g. all categories x all metrics) is its
  own Holm-Tarone family. A secondary metric's status is exploratory: it never fails the comparison.
- Too few items: when no outcome of the test could reach alpha at a metric's number of pairs
  (exact McNemar or sign flip on 4 pairs: at best p = 0.125) its status is ``insufficient_data``,
  it is listed in ``underpowered`` and the report is ``inconclusive`` unless it failed otherwise.
- Every tested metric carries its minimum detectable effect (``MetricResult.mde``).
- Broken items (``broken_items``): pass -> fail on a gating metric, named with why; a broken
  must-pass item fails the comparison whatever the means say.
- The comparison fails (``regression``) on a broken must-pass item, a primary metric's significant
  regression, or a breakdown regression when ``fail_on_breakdown``; gates are reported beside it.
  The verdict's first sentence says which and what to do (``verdict_line``).
- A NaN score or latency counts as missing (None).

Computed from per-pair columns (``paired_columns``), every metric of a group at once: ``ComparisonBuilder``
(the finalizer feeds it from Postgres), ``compare_runs`` for two in-memory ``RunData``.
"""

from __future__ import annotations

import numpy as np

from shared.analysis.broken_items import (
    ITEM_KEYS,
    ItemChanges,
    first_reason,
    item_changes,
    must_pass_mask,
    with_reasons,
)
from shared.analysis.columns import IndexArray
from shared.analysis.comparison_specs import (
    comparison_spec,
    gating_metrics,
    select_metrics,
    with_relative_threshold,
)
from shared.analysis.detectability import tarone_family, with_power
from shared.analysis.errors import ComparisonError
from shared.analysis.metric_specs import ERROR_RATE_METRIC, LATENCY_METRIC, MetricSpecs, spec_differences
from shared.analysis.metric_verdict import Role, metric_result
from shared.analysis.paired_columns import PairedColumns, PairedValues, pair_runs
from shared.analysis.stats import FloatArray, compare_paired_groups, westfall_young
from shared.analysis.verdict_line import VerdictInputs, verdict_line
from yardstick.api.comparison_config import ComparisonConfig, relative_threshold
from yardstick.api.comparison_report import (
    BreakdownResult,
    ComparisonReport,
    ErrorCounts,
    ItemChange,
    MetricResult,
    RunScoreDelta,
)
from yardstick.api.evaluation import Evaluation
from yardstick.api.gates import check_gates
from yardstick.api.run_data import RunData
from yardstick.api.statistics import PairedComparison

LATENCY_P95 = "latency_p95_ms"


class ComparisonBuilder:
    """The comparison fed one score metric at a time (a metric's rows are read and dropped; only its
    per-pair values are kept: 16 bytes per pair and metric).

    ``add_metric`` for every name in ``score_metrics`` (any order), then ``report``, which compares
    all metrics of all groups at once (``compare_paired_groups``: shared resamples, matrix products).
    Latency and the error indicator come from the paired columns themselves.
    """

    def __init__(
        self,
        paired: PairedColumns,
        config: ComparisonConfig,
        specs: MetricSpecs | None = None,
        baseline_specs: MetricSpecs | None = None,
    ) -> None:
        self.paired = paired
        self.config = config
        self.metrics, self.only_baseline, self.only_candidate = select_metrics(paired, config)
        candidate_specs = specs or MetricSpecs()
        # a wrong threshold fails here, before any bootstrap runs
        self.specs = {m: comparison_spec(m, candidate_specs, config) for m in self.metrics}
        self.gating = gating_metrics(self.metrics, self.specs, config)
        self.spec_differences = spec_differences(
            self.metrics, baseline_specs or candidate_specs, candidate_specs
        )
        self._parts: dict[str, list[tuple[str, IndexArray]]] = {}
        for key in config.breakdown_keys:
            parts = paired.groups[key].partition()
            if parts:
                self._parts[key] = parts
        self._values: dict[str, tuple[FloatArray, FloatArray]] = {}

    @property
    def score_metrics(self) -> list[str]:
        """The compared metrics whose values ``add_metric`` must be given."""
        return [m for m in self.metrics if m not in (LATENCY_METRIC, ERROR_RATE_METRIC)]

    def _compare(self, baseline: FloatArray, candidate: FloatArray) -> list[list[PairedComparison]]:
        """Every added metric (rows) compared at once on the whole run's pairs (columns), then on each
        breakdown group's (``compare_paired_groups``: one draw of resamples for all of them)."""
        c = self.config
        groups = [np.arange(self.paired.n_pairs)]
        groups += [members for parts in self._parts.values() for _, members in parts]
        return compare_paired_groups(
            baseline, candidate, groups, resamples=c.resamples, seed=c.seed, confidence=c.confidence
        )

    def _add(self, metric: str, baseline: FloatArray, candidate: FloatArray) -> None:
        self._values[metric] = (baseline, candidate)

    def add_metric(self, metric: str, baseline: FloatArray, candidate: FloatArray) -> None:
        """Raw per-pair values of a score metric; pairs with a failed item count as missing."""
        p = self.paired
        self._add(
            metric,
            np.where(p.baseline_ok, baseline, np.nan),
            np.where(p.candidate_ok, candidate, np.nan),
        )

    def _add_builtin(self, metric: str) -> None:
        p = self.paired
        if metric == ERROR_RATE_METRIC:
            self._add(metric, (~p.baseline_ok).astype(np.float64), (~p.candidate_ok).astype(np.float64))
        else:
            self._add(
                metric,
                np.where(p.baseline_ok, p.baseline_latency, np.nan),
                np.where(p.candidate_ok, p.candidate_latency, np.nan),
            )

    def _relative_thresholds(self, overall: list[PairedComparison]) -> None:
        """Thresholds given relative to the baseline's mean ('+20%'), now that it is known."""
        for metric, comp in zip(self.metrics, overall, strict=True):
            percent = relative_threshold(self.config.thresholds.get(metric, 0.0))
            if percent is not None:
                self.specs[metric] = with_relative_threshold(
                    metric, self.specs[metric], percent, comp.baseline.mean
                )

    def _overall(self, comparisons: list[PairedComparison]) -> list[MetricResult]:
        """The primary and the secondary metrics, each its own family (``multiplicity``)."""
        results: dict[str, MetricResult] = {}
        families: list[tuple[Role, set[str]]] = [
            ("primary", self.gating),
            ("secondary", set(self.metrics) - self.gating),
        ]
        for role, members in families:
            rows = [j for j, m in enumerate(self.metrics) if m in members]
            if not rows:
                continue
            comps = [comparisons[j] for j in rows]
            family = tarone_family(comps, self.config.alpha)
            adjusted: list[float | None] = [f.p_adjusted for f in family]
            label = "Holm"
            if self.config.multiplicity == "westfall_young":
                adjusted, label = self._westfall_young(rows, comps), "WY"
            for pos, j in enumerate(rows):
                m = self.metrics[j]
                result = metric_result(
                    m, comparisons[j], adjusted[pos], self.specs[m], self.config, role, label
                )  # type: ignore[arg-type]
                results[m] = with_power(result, family[pos], self.config.alpha, holm=label == "Holm")
        return [results[m] for m in self.metrics]

    def _westfall_young(self, rows: list[int], comps: list[PairedComparison]) -> list[float | None]:
        """Westfall-Young step-down min-P over the family's joint sign flips; never below a metric's
        own reported p-value (its test may be exact where the resamples are Monte Carlo). A metric
        that did not change at all keeps its own p-value (1): it could not have been significant."""
        differences = np.stack(
            [self._values[self.metrics[j]][1] - self._values[self.metrics[j]][0] for j in rows]
        )
        c = self.config
        adjusted = westfall_young(differences, seed=c.seed).adjusted
        return [
            None if comp.p_value is None else min(1.0, max(comp.p_value if a is None else a, comp.p_value))
            for a, comp in zip(adjusted, comps, strict=True)
        ]

    def _breakdown(self, comparisons: list[list[PairedComparison]]) -> list[list[MetricResult]]:
        """One Holm-Tarone family over every group (rows) x metric (columns) of one breakdown key."""
        alpha = self.config.alpha
        family = tarone_family([c for row in comparisons for c in row], alpha)
        width = len(self.metrics)
        return [
            [
                with_power(
                    metric_result(m, row[j], family[g * width + j].p_adjusted, self.specs[m], self.config),
                    family[g * width + j],
                    alpha,
                )
                for j, m in enumerate(self.metrics)
            ]
            for g, row in enumerate(comparisons)
        ]

    def item_changes(self) -> ItemChanges:
        """Broken and fixed items on the gating metrics (``broken_items``)."""
        mask = must_pass_mask(self.paired, self.config.must_pass_categories)
        gating = {m: self._values[m] for m in self.metrics if m in self.gating and m in self._values}
        return item_changes(self.paired, gating, self.specs, mask, self.config.alpha)

    def report(self) -> ComparisonReport:
        for metric in self.metrics:
            if metric in (LATENCY_METRIC, ERROR_RATE_METRIC):
                self._add_builtin(metric)
            elif metric not in self._values:
                raise ValueError(f"metric {metric!r} was never added; add_metric each score_metrics first")
        empty = np.empty((0, self.paired.n_pairs))
        baseline = np.stack([self._values[m][0] for m in self.metrics]) if self.metrics else empty
        candidate = np.stack([self._values[m][1] for m in self.metrics]) if self.metrics else empty
        compared = self._compare(baseline, candidate)
        self._relative_thresholds(compared[0])
        overall = self._overall(compared[0])
        breakdowns: list[BreakdownResult] = []
        start = 1
        for key, parts in self._parts.items():
            rows = compared[start : start + len(parts)]
            start += len(parts)
            breakdowns.extend(
                BreakdownResult(key=key, value=label, n_pairs=int(members.size), metrics=results)
                for (label, members), results in zip(parts, self._breakdown(rows), strict=True)
            )
        return _report(self, overall, breakdowns, self.item_changes())


def _run_score_deltas(baseline: list[Evaluation], candidate: list[Evaluation]) -> list[RunScoreDelta]:
    base = {e.name: e.numeric for e in baseline}
    cand = {e.name: e.numeric for e in candidate}
    out: list[RunScoreDelta] = []
    for name in sorted(base.keys() | cand.keys()):
        b, c = base.get(name), cand.get(name)
        delta = None if b is None or c is None else c - b
        out.append(RunScoreDelta(name=name, baseline=b, candidate=c, delta=delta))
    return out


def _gate_values(builder: ComparisonBuilder, overall: list[MetricResult]) -> dict[str, float | None]:
    """What a comparison's gate can name: the candidate's mean of each compared metric, and its
    latency's 95th percentile (``latency_p95_ms``, also written ``latency_ms.p95``)."""
    values: dict[str, float | None] = {r.metric: r.comparison.candidate.mean for r in overall}
    p = builder.paired
    latency = p.candidate_latency[p.candidate_ok & np.isfinite(p.candidate_latency)]
    values[LATENCY_P95] = float(np.percentile(latency, 95)) if latency.size else None
    return values


def _report(
    builder: ComparisonBuilder,
    overall: list[MetricResult],
    breakdowns: list[BreakdownResult],
    changes: ItemChanges,
) -> ComparisonReport:
    paired, config = builder.paired, builder.config
    primary = [r for r in overall if r.role == "primary"]
    regressions = [r for r in primary if r.status == "regression"]
    flagged = [
        f"{b.key}={b.value}:{r.metric}"
        for b in breakdowns
        for r in b.metrics
        if r.status == "regression" and r.metric in builder.gating
    ]
    underpowered = [
        r.metric for r in primary if r.status == "insufficient_data" and r.comparison.test is not None
    ]
    gates = check_gates(config.gates, _gate_values(builder, overall))
    failed = (
        bool(regressions) or bool(changes.must_pass_broken) or (config.fail_on_breakdown and bool(flagged))
    )
    headline, details = verdict_line(
        VerdictInputs(
            n_pairs=paired.n_pairs,
            metrics=overall,
            changes=changes,
            breakdown_regressions=flagged,
            fail_on_breakdown=config.fail_on_breakdown,
            underpowered=underpowered,
            gates_missed=[g.gate for g in gates if not g.passed],
        )
    )
    return ComparisonReport(
        baseline_id=paired.baseline.experiment_id,
        baseline_name=paired.baseline.name,
        candidate_id=paired.candidate.experiment_id,
        candidate_name=paired.candidate.name,
        config=config,
        n_pairs=paired.n_pairs,
        unmatched_baseline=paired.unmatched_baseline,
        unmatched_candidate=paired.unmatched_candidate,
        metrics_only_in_baseline=builder.only_baseline,
        metrics_only_in_candidate=builder.only_candidate,
        errors=ErrorCounts(baseline=paired.baseline.error_count, candidate=paired.candidate.error_count),
        metrics=overall,
        broken_items=changes.broken,
        fixed_items=changes.fixed,
        broken_total=changes.broken_total,
        fixed_total=changes.fixed_total,
        must_pass_broken=changes.must_pass_broken,
        must_pass_items=changes.must_pass_items,
        trials=changes.trials,
        breakdowns=breakdowns,
        run_scores=_run_score_deltas(paired.baseline.run_scores, paired.candidate.run_scores),
        regressions=[r.metric for r in regressions],
        secondary_regressions=[
            r.metric for r in overall if r.role == "secondary" and r.status == "regression"
        ],
        improvements=[r.metric for r in primary if r.status == "improvement"],
        breakdown_regressions=flagged,
        regression=failed,
        underpowered=underpowered,
        inconclusive=bool(underpowered) and not failed,
        gates=gates,
        gates_passed=all(g.passed for g in gates),
        spec_differences=builder.spec_differences,
        headline=headline,
        verdict=f"{headline} {details}".strip()
        + "".join(
            f"; {metric} means something else in each run ({', '.join(what)})"
            for metric, what in builder.spec_differences.items()
        ),
    )


def paired_keys(config: ComparisonConfig) -> list[str]:
    """The metadata keys a comparison reads per pair: its breakdown keys, must_pass and category."""
    return list(dict.fromkeys([*config.breakdown_keys, *ITEM_KEYS]))


def compare_columns(
    paired: PairedColumns,
    values: PairedValues,
    config: ComparisonConfig,
    specs: MetricSpecs | None = None,
    baseline_specs: MetricSpecs | None = None,
) -> ComparisonReport:
    """Compare paired runs whose per-pair metric values ``values(name)`` can fetch synchronously."""
    builder = ComparisonBuilder(paired, config, specs, baseline_specs)
    for metric in builder.score_metrics:
        builder.add_metric(metric, *values(metric))
    return builder.report()


def compare_runs(
    baseline: RunData,
    candidate: RunData,
    config: ComparisonConfig | None = None,
    specs: MetricSpecs | None = None,
    baseline_specs: MetricSpecs | None = None,
) -> ComparisonReport:
    """Paired statistical comparison of two in-memory runs; see the module docstring for the rules.
    ``specs`` says what the candidate's metrics mean (``baseline_specs`` the baseline's, when they
    may differ); without them every metric follows the defaults of ``MetricSpecs``."""
    config = config or ComparisonConfig()
    paired, values = pair_runs(baseline, candidate, paired_keys(config))
    report = compare_columns(paired, values, config, specs, baseline_specs)
    return report.model_copy(
        update={
            "broken_items": with_reasons(report.broken_items, run_reasons(candidate, report.broken_items)),
            "fixed_items": with_reasons(report.fixed_items, run_reasons(baseline, report.fixed_items)),
        }
    )


def run_reasons(run: RunData, wanted: list[ItemChange]) -> dict[tuple[str, str], str | None]:
    """(item_id, metric) of each of ``wanted`` -> why ``run`` failed it (``first_reason`` over its
    trials)."""
    item_errors: dict[str, dict[int, str | None]] = {}
    score_reasons: dict[tuple[str, str], dict[int, str | None]] = {}
    listed = {c.item_id for c in wanted}
    for item in (i for i in run.items if i.item_id in listed):
        if item.status == "error":
            item_errors.setdefault(item.item_id, {})[item.trial] = item.error
        for name in item.scores:
            score_reasons.setdefault((item.item_id, name), {}).setdefault(item.trial, None)
        for e in item.evaluations:
            score_reasons.setdefault((item.item_id, e.name), {})[item.trial] = e.error or e.comment
    return {
        (c.item_id, c.metric): first_reason(
            item_errors.get(c.item_id, {}), score_reasons.get((c.item_id, c.metric), {})
        )
        for c in wanted
    }


__all__ = [
    "ERROR_RATE_METRIC",
    "LATENCY_METRIC",
    "ComparisonConfig",
    "ComparisonError",
    "ComparisonReport",
    "compare_columns",
    "compare_runs",
    "comparison_spec",
    "paired_keys",
]
