"""Everything about one metric measured on the same items under two conditions.

All statistics are computed on the complete pairs only (a pair with a missing value on either
side is dropped and counted), so the two summaries, the delta, the test and the effect sizes
describe the same items. The test is the exact McNemar test when every paired value is 0/1,
otherwise the exact sign-flip test for up to ``EXACT_MAX_PAIRS`` pairs and the Monte Carlo
sign-flip test beyond (both keep the A/A false-positive rate at or below alpha at every n; the
paired bootstrap's p-value, used before, was liberal). The delta's CI is the bootstrap percentile
interval in every case (unadjusted for multiple testing).
"""

from __future__ import annotations

from collections.abc import Callable

from shared.analysis.stats.attainable import min_p_given
from shared.analysis.stats.bootstrap import DEFAULT_RESAMPLES, paired_bootstrap
from shared.analysis.stats.cleaning import PairedArrays, Values, is_binary, pair_values
from shared.analysis.stats.descriptive import summarize
from shared.analysis.stats.effect_size import cohens_d, cohens_dz
from shared.analysis.stats.mcnemar import mcnemar_exact
from shared.analysis.stats.sign_flip import EXACT_MAX_PAIRS, monte_carlo_sign_flip_p_value, sign_flip_p_value
from yardstick.api.statistics import CiMethod, PairedBootstrapResult, PairedComparison, TestName


def compare_paired(
    baseline: Values,
    candidate: Values,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    confidence: float = 0.95,
) -> PairedComparison:
    """Summaries, delta (+ CI), effect sizes and the appropriate paired test."""
    pairs = pair_values(baseline, candidate)
    boot = paired_bootstrap(baseline, candidate, resamples=resamples, seed=seed, confidence=confidence)
    return assemble_comparison(
        baseline,
        candidate,
        pairs,
        boot,
        confidence,
        lambda: monte_carlo_sign_flip_p_value(pairs.differences, seed=seed),
    )


def needs_monte_carlo(pairs: PairedArrays) -> bool:
    """Whether the test of these pairs is the Monte Carlo sign flip (not McNemar, not exact)."""
    binary = is_binary(pairs.baseline) and is_binary(pairs.candidate)
    return pairs.n > EXACT_MAX_PAIRS and not binary


def assemble_comparison(
    baseline: Values,
    candidate: Values,
    pairs: PairedArrays,
    boot: PairedBootstrapResult,
    confidence: float,
    monte_carlo_p: Callable[[], float | None],
) -> PairedComparison:
    """The comparison from its bootstrap; ``monte_carlo_p`` is called when the Monte Carlo
    sign-flip test is the one reported (``compare_paired_many`` hands in p-values it computed for
    many metrics at once)."""
    binary = is_binary(pairs.baseline) and is_binary(pairs.candidate)
    mcnemar = mcnemar_exact(baseline, candidate) if binary else None
    # each side's own interval is not what a comparison reports (the delta's is): Wilson for 0/1,
    # else the cheap t clipped to the range (a bootstrap per side, metric and group cost seconds)
    side_ci: CiMethod = "auto" if binary else "t_clipped"
    base_sum = summarize(pairs.baseline, confidence=confidence, ci_method=side_ci)
    cand_sum = summarize(pairs.candidate, confidence=confidence, ci_method=side_ci)
    delta = boot.mean_difference
    delta_pct = None
    if delta is not None and base_sum.mean:
        delta_pct = delta / abs(base_sum.mean) * 100.0
    test: TestName | None
    if pairs.n < 2:
        test, p_value = None, None
    elif mcnemar is not None:
        test, p_value = "mcnemar_exact", mcnemar.p_value
    elif pairs.n <= EXACT_MAX_PAIRS:
        test, p_value = "sign_flip_exact", sign_flip_p_value(pairs.differences)
    else:
        test, p_value = "sign_flip_monte_carlo", monte_carlo_p()
    return PairedComparison(
        n_pairs=pairs.n,
        n_dropped=pairs.n_dropped,
        baseline=base_sum,
        candidate=cand_sum,
        delta=delta,
        delta_pct=delta_pct,
        delta_ci_low=boot.ci_low,
        delta_ci_high=boot.ci_high,
        bootstrap=boot,
        mcnemar=mcnemar,
        cohens_d=cohens_d(pairs.baseline, pairs.candidate),
        cohens_dz=cohens_dz(pairs.differences),
        test=test,
        p_value=p_value,
        differences_sd=float(pairs.differences.std(ddof=1)) if pairs.n >= 2 else None,
        min_p_value=min_p_given(pairs, test, boot.seed),
    )
