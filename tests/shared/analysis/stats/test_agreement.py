"""Agreement between two raters: equal to scikit-learn and SciPy, degenerate inputs, intervals that
cover near 95 % in simulation."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps  # type: ignore[import-untyped]
from sklearn.metrics import cohen_kappa_score  # type: ignore[import-untyped]

from shared.analysis.stats import (
    StatsInputError,
    binary_agreement,
    categorical_agreement,
    ordinal_agreement,
)
from shared.analysis.stats.agreement_tables import (
    agreement_weights,
    kappa_interval,
    kappa_parts,
    spearman_from_tables,
    spearman_interval,
)
from shared.analysis.stats.descriptive import wilson_bounds

pytestmark = pytest.mark.unit


@st.composite
def rated_items(draw: st.DrawFn) -> tuple[list[int], list[int | None], list[int | None]]:
    """A scale 1..k and two raters' labels on it, some missing; often few distinct labels."""
    k = draw(st.integers(2, 6))
    used = draw(st.lists(st.integers(1, k), min_size=1, max_size=k, unique=True))
    label = st.one_of(st.none(), st.sampled_from(used)) if draw(st.booleans()) else st.sampled_from(used)
    pairs = draw(st.lists(st.tuples(label, label), min_size=0, max_size=80))
    return list(range(1, k + 1)), [p[0] for p in pairs], [p[1] for p in pairs]


def _complete(ref: list[int | None], jud: list[int | None]) -> tuple[list[int], list[int]]:
    kept = [(r, j) for r, j in zip(ref, jud, strict=True) if r is not None and j is not None]
    return [r for r, _ in kept], [j for _, j in kept]


def _sklearn(ref: list[int], jud: list[int], scale: list[int], weights: str | None) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(cohen_kappa_score(ref, jud, labels=scale, weights=weights))


@settings(max_examples=300, deadline=None)
@given(rated_items())
def test_kappas_and_rho_equal_sklearn_and_scipy(
    data: tuple[list[int], list[int | None], list[int | None]],
) -> None:
    scale, ref, jud = data
    r, j = _complete(ref, jud)
    for weights in ("quadratic", "linear"):
        result = ordinal_agreement(ref, jud, categories=scale, weights=weights)
        assert (result.n, result.n_dropped) == (len(r), len(ref) - len(r))
        if len(r) < 2:
            assert result.weighted_kappa.value is None and result.weighted_kappa.reason
            continue
        for estimate, w in ((result.weighted_kappa, weights), (result.kappa, None)):
            expected = _sklearn(r, j, scale, w)
            if math.isnan(expected):
                assert estimate.value is None and "undefined" in (estimate.reason or "")
            else:
                assert estimate.value == pytest.approx(expected, abs=1e-9)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rho = float(sps.spearmanr(r, j).statistic)
        if math.isnan(rho):
            assert result.spearman.value is None and result.spearman.reason
        else:
            assert result.spearman.value == pytest.approx(rho, abs=1e-9)
    json.dumps(result.model_dump(), allow_nan=False)  # no NaN ever reaches a report


@settings(max_examples=200, deadline=None)
@given(rated_items())
def test_intervals_stay_in_range_and_contain_the_estimate(
    data: tuple[list[int], list[int | None], list[int | None]],
) -> None:
    scale, ref, jud = data
    result = ordinal_agreement(ref, jud, categories=scale)
    for est in (result.weighted_kappa, result.kappa, result.spearman, result.observed_agreement):
        if est.ci_low is None or est.ci_high is None or est.value is None:
            assert est.reason, est
            continue
        assert -1.0 <= est.ci_low <= est.value + 1e-12 and est.value - 1e-12 <= est.ci_high <= 1.0, est


def test_categorical_and_binary_kappa_equal_sklearn() -> None:
    rng = np.random.default_rng(3)
    names = ["refusal", "hallucination", "correct", "off_topic"]
    for n in (2, 5, 30, 200):
        ref = rng.choice(names, n).tolist()
        jud = [r if rng.random() < 0.6 else str(rng.choice(names)) for r in ref]
        got = categorical_agreement(ref, jud, categories=names).kappa.value
        assert got == pytest.approx(_sklearn(ref, jud, names, None), abs=1e-9)
        passed = (rng.random(n) < 0.3).tolist()
        judged = [p if rng.random() < 0.8 else not p for p in passed]
        expected = _sklearn(passed, judged, [False, True], None)
        got = binary_agreement(passed, judged).kappa.value
        assert got is None if math.isnan(expected) else got == pytest.approx(expected, abs=1e-9)


def test_binary_by_hand() -> None:
    reference = ["pass"] * 4 + ["fail"] * 6 + [None]
    judge = ["pass", "pass", "pass", "fail", "fail", "fail", "fail", "fail", "pass", "pass", "pass"]
    result = binary_agreement(reference, judge, positive="pass", negative="fail")
    assert (result.n, result.n_dropped) == (10, 1)
    assert (result.true_positives, result.false_negatives) == (3, 1)
    assert (result.false_positives, result.true_negatives) == (2, 4)
    assert result.confusion.labels == ["fail", "pass"]
    assert result.confusion.counts == [[4, 2], [1, 3]]
    assert result.true_positive_rate.value == 0.75 and result.true_positive_rate.total == 4
    assert (result.true_positive_rate.ci_low, result.true_positive_rate.ci_high) == wilson_bounds(3, 4)
    assert result.true_negative_rate.value == pytest.approx(4 / 6)
    assert result.observed_agreement.value == pytest.approx(0.7)
    # p_o = 0.7, p_e = 0.4·0.5 + 0.6·0.5 = 0.5 → κ = 0.4
    assert result.kappa.value == pytest.approx(0.4)
    assert result.kappa.method == "fisher_z_jackknife" and result.observed_agreement.method == "wilson"


def test_ordinal_keeps_empty_categories() -> None:
    result = ordinal_agreement([1, 2, 2, 5], [1, 2, 3, 5], categories=[1, 2, 3, 4, 5])
    assert result.confusion.labels == [1, 2, 3, 4, 5]
    assert result.confusion.counts[3] == [0, 0, 0, 0, 0]
    assert result.observed_agreement.count == 3
    # float labels from a score column are scale points
    assert ordinal_agreement([1.0, 2.0, float("nan")], [1, 2, 3], categories=[1, 2, 3]).n == 2


def test_degenerate_inputs_give_none_with_a_reason() -> None:
    same = binary_agreement([True] * 5, [True] * 5)
    assert same.kappa.value is None and "expected agreement is 1" in (same.kappa.reason or "")
    assert same.observed_agreement.value == 1.0
    assert same.true_negative_rate.value is None and "never said False" in (
        same.true_negative_rate.reason or ""
    )
    empty = binary_agreement([None, True, None], [False, None, None])
    assert (empty.n, empty.n_dropped) == (0, 3)
    assert empty.observed_agreement.value is None and empty.kappa.value is None
    one = binary_agreement([True], [False])
    assert one.kappa.value is None and "at least 2" in (one.kappa.reason or "")
    constant_judge = ordinal_agreement([1, 2, 3, 4, 5], [3] * 5, categories=range(1, 6))
    assert constant_judge.spearman.value is None and "same label" in (constant_judge.spearman.reason or "")
    assert constant_judge.weighted_kappa.value == 0.0
    perfect = ordinal_agreement([1, 2, 3, 4, 5] * 4, [1, 2, 3, 4, 5] * 4, categories=range(1, 6))
    assert perfect.spearman.value == 1.0 and perfect.spearman.ci_low is None and perfect.spearman.reason
    kappa = binary_agreement([True, False] * 15, [True, False] * 15).kappa
    assert kappa.value == 1.0 and kappa.ci_high == 1.0 and kappa.ci_low is not None and kappa.ci_low < 0.95
    assert kappa.method == "fce_adjusted_wald"  # the jackknife is degenerate at κ = 1
    for model in (same, empty, one, constant_judge, perfect):
        json.dumps(model.model_dump(), allow_nan=False)


def test_bad_inputs_are_rejected() -> None:
    with pytest.raises(StatsInputError, match="not one of the categories"):
        binary_agreement(["pass", "maybe"], ["pass", "fail"], positive="pass", negative="fail")
    with pytest.raises(StatsInputError, match="one label per item"):
        binary_agreement([True, False], [True])
    with pytest.raises(StatsInputError, match="increasing integers"):
        ordinal_agreement([1], [1], categories=[3, 2, 1])
    with pytest.raises(StatsInputError, match="not one of the categories"):
        ordinal_agreement([2.5], [1], categories=[1, 2, 3])


# --- coverage by simulation --------------------------------------------------------------------
# Every statistic depends on the items only through the table of counts, and n items drawn from a
# population with cell probabilities P give a Multinomial(n, P) table: each replication is one table,
# and the interval kernels the public functions call run on all of them at once. The true value is
# the statistic of P itself. REPLICATIONS = 2000 gives a Monte Carlo SE of 0.0049 at 95 %; an
# interval passes when its coverage is inside COVERAGE_BAND[n]: 0.95 - 0.025 / + 0.025 at n = 30, where
# large-sample intervals drift by a point or two, and 0.95 - 0.015 / + 0.02 at n = 200 (the
# jackknife is slightly conservative for pass/fail: 0.96 measured).
REPLICATIONS = 2000
COVERAGE_BAND = {30: (0.925, 0.975), 200: (0.935, 0.97)}


def _binary_population(prevalence: float, sensitivity: float, specificity: float) -> np.ndarray:
    neg, pos = 1 - prevalence, prevalence
    return np.array(
        [[neg * specificity, neg * (1 - specificity)], [pos * (1 - sensitivity), pos * sensitivity]]
    )


def _latent_population(correlation: float, cuts: list[float], seed: int = 5) -> np.ndarray:
    """Cell shares of two ratings cut from a bivariate normal (a scale of len(cuts) + 1 points)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(400_000)
    y = correlation * x + math.sqrt(1 - correlation**2) * rng.standard_normal(x.size)
    k = len(cuts) + 1
    cells = np.searchsorted(cuts, x) * k + np.searchsorted(cuts, y)
    return np.bincount(cells, minlength=k * k).reshape(k, k) / x.size


def _categorical_population() -> np.ndarray:
    """Four categories with unequal use; the judge keeps the person's label 70 % of the time."""
    shares = np.array([0.4, 0.3, 0.2, 0.1])
    return shares[:, None] * (0.7 * np.eye(4) + 0.3 * shares[None, :])


def _tables(population: np.ndarray, n: int, seed: int) -> np.ndarray:
    k = population.shape[0]
    return np.random.default_rng(seed).multinomial(n, population.ravel(), size=REPLICATIONS).reshape(-1, k, k)


KAPPA_CASES = {
    "binary, 50 % prevalence": (_binary_population(0.5, 0.85, 0.85), "none"),
    "binary, 20 % prevalence": (_binary_population(0.2, 0.8, 0.9), "none"),
    "binary, 10 % prevalence": (_binary_population(0.1, 0.9, 0.95), "none"),
    "1-5 scale, quadratic": (_latent_population(0.7, [-1.5, -0.5, 0.3, 1.0]), "quadratic"),
    "1-5 scale, linear": (_latent_population(0.7, [-1.5, -0.5, 0.3, 1.0]), "linear"),
    "1-5 scale, unweighted": (_latent_population(0.7, [-1.5, -0.5, 0.3, 1.0]), "none"),
    "four categories": (_categorical_population(), "none"),
}


@pytest.mark.parametrize("n", [30, 200])
@pytest.mark.parametrize("case", list(KAPPA_CASES))
def test_kappa_interval_covers(case: str, n: int) -> None:
    population, weights = KAPPA_CASES[case]
    w = agreement_weights(population.shape[0], weights)  # type: ignore[arg-type]
    truth = float(kappa_parts(population, w)[0])
    tables = _tables(population, n, seed=n)
    low, high, _ = kappa_interval(tables, w, 0.95)
    defined = ~np.isnan(low)
    assert defined.mean() > 0.99
    coverage = float(np.mean((low[defined] <= truth) & (truth <= high[defined])))
    print(f"kappa {case} n={n}: {coverage:.3f}")
    lo, hi = COVERAGE_BAND[n]
    assert lo <= coverage <= hi, (
        f"κ ({case}) covered {truth:.3f} in {coverage:.3f} of {REPLICATIONS} at n={n}"
    )


SPEARMAN_CASES = {
    "1-5 scale, even use": _latent_population(0.7, [-1.5, -0.5, 0.3, 1.0]),
    "1-5 scale, mostly 1s (many ties)": _latent_population(0.7, [0.5, 1.2, 1.8, 2.3]),
    "1-3 scale, strong": _latent_population(0.9, [-1.0, 1.0]),
    "1-5 scale, weak": _latent_population(0.3, [-1.5, -0.5, 0.3, 1.0]),
}


@pytest.mark.parametrize("n", [30, 200])
@pytest.mark.parametrize("case", list(SPEARMAN_CASES))
def test_spearman_interval_covers(case: str, n: int) -> None:
    population = SPEARMAN_CASES[case]
    truth = float(spearman_from_tables(population))
    low, high, _ = spearman_interval(_tables(population, n, seed=n + 1), 0.95)
    defined = ~np.isnan(low)
    assert defined.mean() > 0.99
    coverage = float(np.mean((low[defined] <= truth) & (truth <= high[defined])))
    print(f"rho {case} n={n}: {coverage:.3f}")
    lo, hi = COVERAGE_BAND[n]
    assert lo <= coverage <= hi, (
        f"rho ({case}) covered {truth:.3f} in {coverage:.3f} of {REPLICATIONS} at n={n}"
    )


def test_public_functions_use_the_simulated_kernels() -> None:
    rng = np.random.default_rng(11)
    ref = rng.integers(1, 6, 40)
    jud = np.clip(ref + rng.integers(-1, 2, 40), 1, 5)
    result = ordinal_agreement(ref.tolist(), jud.tolist(), categories=range(1, 6))
    table = np.array(result.confusion.counts)
    low, high, _ = kappa_interval(table, agreement_weights(5, "quadratic"), 0.95)
    assert (result.weighted_kappa.ci_low, result.weighted_kappa.ci_high) == (float(low), float(high))
    low, high, _ = spearman_interval(table, 0.95)
    assert (result.spearman.ci_low, result.spearman.ci_high) == (float(low), float(high))


def test_known_weakness_quadratic_kappa_on_a_skewed_scale() -> None:
    """Most items rated 1 on a 1-5 scale, quadratic weights: the jackknife interval under-covers at
    small n (0.88-0.89 measured at n = 20-50, 0.94 at n = 200); recorded here so a change shows."""
    population = _latent_population(0.7, [0.5, 1.2, 1.8, 2.3])
    w = agreement_weights(5, "quadratic")
    truth = float(kappa_parts(population, w)[0])
    for n, floor in ((30, 0.86), (200, 0.93)):
        low, high, _ = kappa_interval(_tables(population, n, seed=n), w, 0.95)
        defined = ~np.isnan(low)
        coverage = float(np.mean((low[defined] <= truth) & (truth <= high[defined])))
        print(f"kappa skewed 1-5 quadratic n={n}: {coverage:.3f}")
        assert floor <= coverage <= 0.97, f"coverage {coverage:.3f} at n={n}"
