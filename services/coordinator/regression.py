"""Baseline vs candidate: paired per-metric tests, thresholds, Holm correction, verdict.

Rules (also in the report's field descriptions):
- Items are paired by (item_id, trial); unmatched ones are listed on each side.
- Score metrics and ``latency_ms`` use only pairs where both items have status ``ok`` and both
  values are present (pairwise deletion, counted in ``n_dropped``). Errors are compared on
  their own as the lower-is-better metric ``error_rate`` (per-pair 0/1, exact McNemar).
- Test: exact McNemar when every paired value is 0/1, otherwise the two-sided paired
  bootstrap (``shared.stats.paired_bootstrap``); Holm-corrected across the compared metrics.
  Each breakdown key (e.g. all categories x all metrics) is its own Holm family.
- Thresholds are signed deltas in the metric's bad direction (-0.05 for higher-is-better,
  +100 for latency in ms). Regression: delta worse than the threshold AND Holm-adjusted
  p < alpha. Improvement: delta better than the mirrored threshold AND Holm-adjusted p < alpha.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from services.coordinator.regression_models import (
    BreakdownResult,
    ComparisonReport,
    ErrorCounts,
    MetricResult,
    RunScoreDelta,
)
from services.coordinator.regression_rules import (
    DEFAULT_THRESHOLDS,
    ERROR_RATE_METRIC,
    LATENCY_METRIC,
    ComparisonConfig,
    ComparisonError,
    default_threshold,
    is_lower_better,
)
from services.coordinator.run_data import ItemKey, RunData, ScoredItem
from shared.stats import PairedComparison, compare_paired, holm_adjust


def _index(run: RunData) -> dict[ItemKey, ScoredItem]:
    out: dict[ItemKey, ScoredItem] = {}
    for item in run.items:
        if item.key in out:
            raise ComparisonError(
                f"run {run.experiment_id!r} has item {item.item_id!r} trial {item.trial} twice; "
                "pass one terminal result per (item_id, trial)"
            )
        out[item.key] = item
    return out


def _value(item: ScoredItem, metric: str) -> float | None:
    if metric == ERROR_RATE_METRIC:
        return 1.0 if item.status == "error" else 0.0
    if item.status != "ok":
        return None
    return item.latency_ms if metric == LATENCY_METRIC else item.scores.get(metric)


def _score_names(run: RunData) -> set[str]:
    return {name for item in run.items for name in item.scores}


def _select_metrics(
    baseline: RunData, candidate: RunData, config: ComparisonConfig
) -> tuple[list[str], list[str], list[str]]:
    base_names, cand_names = _score_names(baseline), _score_names(candidate)
    extras = []
    has_latency = all(any(i.latency_ms is not None for i in r.items) for r in (baseline, candidate))
    if config.include_latency and has_latency:
        extras.append(LATENCY_METRIC)
    if config.include_error_rate:
        extras.append(ERROR_RATE_METRIC)
    if config.metrics is None:
        chosen = sorted(base_names & cand_names) + extras
    else:
        known = base_names | cand_names | {LATENCY_METRIC, ERROR_RATE_METRIC}
        unknown = [m for m in config.metrics if m not in known]
        if unknown:
            raise ComparisonError(f"metrics {unknown} are scored in neither run; available: {sorted(known)}")
        chosen = list(dict.fromkeys(config.metrics))
    return chosen, sorted(base_names - cand_names), sorted(cand_names - base_names)


def _check_threshold(metric: str, threshold: float, lower_better: bool) -> None:
    if (lower_better and threshold < 0) or (not lower_better and threshold > 0):
        sign = "≥ 0 (an allowed increase)" if lower_better else "≤ 0 (an allowed drop)"
        raise ComparisonError(f"threshold {threshold} for {metric!r} points the wrong way: it must be {sign}")


def _result(
    metric: str, comp: PairedComparison, p_adj: float | None, config: ComparisonConfig
) -> MetricResult:
    lower = is_lower_better(metric, config.lower_is_better)
    threshold = config.thresholds.get(metric, default_threshold(metric, lower))
    _check_threshold(metric, threshold, lower)
    significant = p_adj is not None and p_adj < config.alpha
    status: Literal["regression", "improvement", "no_significant_change", "insufficient_data"]
    if comp.delta is None or p_adj is None:
        status = "insufficient_data"
    else:
        sign = -1.0 if lower else 1.0  # flip lower-is-better metrics so "bigger is better"
        if sign * comp.delta < sign * threshold and significant:
            status = "regression"
        elif sign * comp.delta > -sign * threshold and significant:
            status = "improvement"
        else:
            status = "no_significant_change"
    return MetricResult(
        metric=metric,
        direction="lower_is_better" if lower else "higher_is_better",
        threshold=threshold,
        comparison=comp,
        p_adjusted=p_adj,
        significant=significant,
        status=status,
    )


def _family(
    groups: Sequence[Sequence[tuple[ScoredItem, ScoredItem]]], metrics: list[str], config: ComparisonConfig
) -> list[list[MetricResult]]:
    """Compare every metric in every group; one Holm family over all of them."""
    comps = [
        [
            compare_paired(
                [_value(b, m) for b, _ in pairs],
                [_value(c, m) for _, c in pairs],
                resamples=config.resamples,
                seed=config.seed,
                confidence=config.confidence,
            )
            for m in metrics
        ]
        for pairs in groups
    ]
    flat_adj = holm_adjust([c.p_value for row in comps for c in row])
    width = len(metrics)
    return [
        [_result(m, row[j], flat_adj[g * width + j], config) for j, m in enumerate(metrics)]
        for g, row in enumerate(comps)
    ]


def _breakdowns(
    pairs: list[tuple[ScoredItem, ScoredItem]], metrics: list[str], config: ComparisonConfig
) -> list[BreakdownResult]:
    out: list[BreakdownResult] = []
    for key in config.breakdown_keys:
        groups: dict[str, list[tuple[ScoredItem, ScoredItem]]] = {}
        for b, c in pairs:
            value = b.metadata.get(key, c.metadata.get(key))
            if value is not None:
                groups.setdefault(str(value), []).append((b, c))
        if not groups:
            continue
        values = sorted(groups)
        results = _family([groups[v] for v in values], metrics, config)
        out.extend(
            BreakdownResult(key=key, value=v, n_pairs=len(groups[v]), metrics=r)
            for v, r in zip(values, results, strict=True)
        )
    return out


def _run_score_deltas(baseline: RunData, candidate: RunData) -> list[RunScoreDelta]:
    base = {e.name: e.numeric for e in baseline.run_scores}
    cand = {e.name: e.numeric for e in candidate.run_scores}
    out: list[RunScoreDelta] = []
    for name in sorted(base.keys() | cand.keys()):
        b, c = base.get(name), cand.get(name)
        delta = None if b is None or c is None else c - b
        out.append(RunScoreDelta(name=name, baseline=b, candidate=c, delta=delta))
    return out


def _verdict(report_n: int, regressions: list[MetricResult], improved: int, flagged: list[str]) -> str:
    if report_n == 0:
        return "INCONCLUSIVE: no (item_id, trial) pairs match between baseline and candidate"
    if regressions:
        what = ", ".join(f"{r.metric} {r.comparison.delta:+.3g}" for r in regressions[:3])
        what += ", …" if len(regressions) > 3 else ""
        head = f"REGRESSION: {len(regressions)} metric(s) regressed ({what})"
    else:
        head = "OK: no significant regression"
    tail = f" on {report_n} paired items; {improved} improved"
    if flagged:
        tail += f"; breakdown regressions: {', '.join(flagged)}"
    return head + tail


def compare_runs(
    baseline: RunData, candidate: RunData, config: ComparisonConfig | None = None
) -> ComparisonReport:
    """Paired statistical comparison of two runs; see the module docstring for the rules."""
    config = config or ComparisonConfig()
    base_idx, cand_idx = _index(baseline), _index(candidate)
    keys = [k for k in base_idx if k in cand_idx]
    pairs = [(base_idx[k], cand_idx[k]) for k in keys]
    metrics, only_base, only_cand = _select_metrics(baseline, candidate, config)
    overall = _family([pairs], metrics, config)[0]
    breakdowns = _breakdowns(pairs, metrics, config)
    regressions = [r for r in overall if r.status == "regression"]
    flagged = [
        f"{b.key}={b.value}:{r.metric}" for b in breakdowns for r in b.metrics if r.status == "regression"
    ]
    improved = [r.metric for r in overall if r.status == "improvement"]
    return ComparisonReport(
        baseline_id=baseline.experiment_id,
        baseline_name=baseline.name,
        candidate_id=candidate.experiment_id,
        candidate_name=candidate.name,
        config=config.model_dump(mode="json"),
        n_pairs=len(pairs),
        unmatched_baseline=[k for k in base_idx if k not in cand_idx],
        unmatched_candidate=[k for k in cand_idx if k not in base_idx],
        metrics_only_in_baseline=only_base,
        metrics_only_in_candidate=only_cand,
        errors=ErrorCounts(
            baseline=sum(i.status == "error" for i in baseline.items),
            candidate=sum(i.status == "error" for i in candidate.items),
        ),
        metrics=overall,
        breakdowns=breakdowns,
        run_scores=_run_score_deltas(baseline, candidate),
        regressions=[r.metric for r in regressions],
        improvements=improved,
        breakdown_regressions=flagged,
        regression=bool(regressions) or (config.fail_on_breakdown and bool(flagged)),
        verdict=_verdict(len(pairs), regressions, len(improved), flagged),
    )


__all__ = [
    "DEFAULT_THRESHOLDS",
    "ERROR_RATE_METRIC",
    "LATENCY_METRIC",
    "ComparisonConfig",
    "ComparisonError",
    "ComparisonReport",
    "compare_runs",
    "default_threshold",
    "is_lower_better",
]
