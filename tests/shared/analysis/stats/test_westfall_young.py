from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from shared.analysis.stats import (
    StatsInputError,
    holm_adjust,
    mcnemar_exact,
    sign_flip_p_value,
    westfall_young,
)

pytestmark = pytest.mark.unit


def brute_force(differences: np.ndarray) -> tuple[list[float | None], list[float | None]]:
    """Westfall-Young step-down min-P over every sign pattern, written out loop by loop."""
    m, n = differences.shape
    patterns = list(itertools.product((1.0, -1.0), repeat=n))  # the first is the observed one
    complete = [[not math.isnan(differences[j][i]) for i in range(n)] for j in range(m)]
    sizes = [sum(complete[j]) for j in range(m)]
    stats = [[0.0] * m for _ in patterns]
    for b, signs in enumerate(patterns):
        for j in range(m):
            total = sum(signs[i] * differences[j][i] for i in range(n) if complete[j][i])
            stats[b][j] = abs(total) / sizes[j] if sizes[j] else 0.0

    def share_at_least(j: int, value: float) -> float:
        tol = 1e-12 * max(1.0, value)
        return sum(1 for b in range(len(patterns)) if stats[b][j] >= value - tol) / len(patterns)

    raw: list[float | None] = [None] * m
    adjusted: list[float | None] = [None] * m
    family = []
    for j in range(m):
        if sizes[j] >= 2:
            raw[j] = adjusted[j] = 1.0
            if any(complete[j][i] and differences[j][i] != 0.0 for i in range(n)):
                family.append(j)
    p_star = [[share_at_least(j, stats[b][j]) for j in range(m)] for b in range(len(patterns))]
    for j in family:
        raw[j] = p_star[0][j]
    ranked = sorted(family, key=lambda j: p_star[0][j])
    running = 0.0
    for i, j in enumerate(ranked):
        rest = ranked[i:]
        hits = sum(1 for b in range(len(patterns)) if min(p_star[b][k] for k in rest) <= p_star[0][j])
        running = max(running, hits / len(patterns))
        adjusted[j] = min(1.0, running)
    return raw, adjusted


def _family(rng: np.random.Generator, n: int) -> np.ndarray:
    """A 0/1 metric, a continuous one correlated with it, and a coarse (ties) one with NaNs."""
    base = (rng.random(n) < 0.7).astype(float)
    cand = np.where(rng.random(n) < 0.3, 1.0 - base, base)
    binary = cand - base
    continuous = binary * 0.6 + rng.normal(0.0, 0.2, n)
    coarse = np.round(rng.normal(-0.1, 0.3, n), 1)
    coarse[rng.choice(n, size=2, replace=False)] = np.nan
    return np.stack([binary, continuous, coarse])


@pytest.mark.parametrize(("n", "seed"), [(6, 0), (7, 1), (8, 2), (9, 3), (10, 4)])
def test_equals_the_brute_force_enumeration(n: int, seed: int) -> None:
    differences = _family(np.random.default_rng(seed), n)
    result = westfall_young(differences)
    raw, adjusted = brute_force(differences)
    assert result.exact and result.resamples == 2**n
    assert result.raw == pytest.approx(raw, abs=1e-12)
    assert result.adjusted == pytest.approx(adjusted, abs=1e-12)
    assert raw != adjusted  # the family is adjusted at all


def test_raw_p_values_are_the_exact_single_metric_tests() -> None:
    differences = _family(np.random.default_rng(11), 12)
    result = westfall_young(differences)
    for row, raw in zip(differences, result.raw, strict=True):
        assert raw == pytest.approx(sign_flip_p_value(row[~np.isnan(row)]), abs=1e-12)


def _three_evaluators() -> tuple[np.ndarray, list[float]]:
    """exact_match 0.85 -> 0.55 on 20 items (six broken, none fixed); ``contains`` also credits
    one more item in both runs; string_similarity 0.9 / 0.4 with small noise. Returns the
    differences and each metric's own p-value as a comparison reports it (McNemar, sign flip)."""
    base_exact = np.array([1.0] * 17 + [0.0] * 3)
    cand_exact = base_exact.copy()
    cand_exact[:6] = 0.0
    base_contains, cand_contains = base_exact.copy(), cand_exact.copy()
    base_contains[17] = cand_contains[17] = 1.0
    rng = np.random.default_rng(7)
    base_sim = np.where(base_exact == 1.0, 0.9, 0.4) + rng.normal(0.0, 0.02, 20)
    cand_sim = np.where(cand_exact == 1.0, 0.9, 0.4) + rng.normal(0.0, 0.02, 20)
    differences = np.stack([cand_exact - base_exact, cand_contains - base_contains, cand_sim - base_sim])
    alone = westfall_young(differences[2:]).raw[0]
    assert alone is not None
    singles = [
        mcnemar_exact(base_exact, cand_exact).p_value,
        mcnemar_exact(base_contains, cand_contains).p_value,
        alone,
    ]
    return differences, singles


def test_near_copies_do_not_cost_a_regression() -> None:
    differences, singles = _three_evaluators()
    result = westfall_young(differences)
    exact_match = result.adjusted[0]
    assert exact_match is not None and exact_match < 0.05
    assert exact_match <= 1.25 * singles[0]  # McNemar's 2 / 2**6 alone
    holm = holm_adjust(singles)
    assert holm[0] is not None and holm[0] >= 0.05  # Holm misses it with the near-copies beside it


def _null_family(rng: np.random.Generator, n: int, m: int, rho: float) -> np.ndarray:
    """A/A differences: per item, each run's latent is shared by the metrics with weight rho;
    half the metrics are 0/1 (latent > 0), the others continuous."""
    runs = []
    for _ in range(2):
        shared = rng.normal(size=(1, n))
        latent = np.sqrt(rho) * shared + np.sqrt(1.0 - rho) * rng.normal(size=(m, n))
        scores = np.where(np.arange(m)[:, None] % 2 == 0, (latent > 0.0).astype(float), latent)
        runs.append(scores)
    return runs[1] - runs[0]


@pytest.mark.parametrize("rho", [0.0, 0.8])
def test_family_wise_error_rate_of_a_a_comparisons(rho: float) -> None:
    """R = 400 A/A data sets, n = 30 pairs, m = 4 metrics (two 0/1, two continuous), independent
    (rho 0) or sharing a per-item latent (rho 0.8), B = 500 sign patterns: the share with any
    adjusted p < 0.05 stays within 3 Monte Carlo standard errors of 0.05 (limit 0.083)."""
    rng = np.random.default_rng(int(rho * 10))
    reps = 400
    errors = 0
    for _ in range(reps):
        adjusted = westfall_young(_null_family(rng, 30, 4, rho), resamples=500).adjusted
        errors += any(p is not None and p < 0.05 for p in adjusted)
    limit = 0.05 + 3 * math.sqrt(0.05 * 0.95 / reps)
    assert errors / reps <= limit


def test_one_metric_is_its_own_test() -> None:
    rng = np.random.default_rng(5)
    for n in (12, 40):
        result = westfall_young(rng.normal(0.2, 1.0, (1, n)))
        assert result.adjusted == result.raw
        assert result.exact == (n <= 16)


@pytest.mark.parametrize("seed", range(4))
def test_adjusted_is_at_least_raw_monotone_and_a_probability(seed: int) -> None:
    rng = np.random.default_rng(seed)
    differences = rng.normal(rng.normal(0.0, 0.3, (6, 1)), 1.0, (6, 50))
    differences[1] = differences[0] + rng.normal(0.0, 0.1, 50)
    result = westfall_young(differences, resamples=2_000)
    raw = np.array(result.raw, dtype=float)
    adjusted = np.array(result.adjusted, dtype=float)
    assert not result.exact and result.resamples == 2_000
    assert np.all(adjusted >= raw)
    assert np.all((adjusted > 0.0) & (adjusted <= 1.0))
    order = np.argsort(raw, kind="stable")
    assert np.all(np.diff(adjusted[order]) >= 0.0)


def test_untested_metrics_stay_out_of_the_family() -> None:
    rng = np.random.default_rng(2)
    tested = rng.normal(0.3, 1.0, (2, 30))
    one_pair = np.full(30, np.nan)
    one_pair[4] = 0.5
    unchanged = np.zeros(30)
    unchanged[:3] = np.nan
    result = westfall_young(np.vstack([tested, one_pair, unchanged]), resamples=1_000)
    alone = westfall_young(tested, resamples=1_000)
    assert result.raw[2:] == [None, 1.0] and result.adjusted[2:] == [None, 1.0]
    assert result.raw[:2] == alone.raw and result.adjusted[:2] == alone.adjusted
    nothing = westfall_young(np.vstack([one_pair, unchanged]))
    assert nothing.raw == [None, 1.0] and nothing.adjusted == [None, 1.0]


def test_pairs_no_metric_changed_do_not_decide_exactness() -> None:
    differences = np.zeros((2, 40))
    differences[0, :5] = [-1.0, -1.0, -1.0, -1.0, 1.0]
    differences[1, :5] = [-0.9, -0.8, -0.7, -1.0, 0.6]
    result = westfall_young(differences)
    assert result.exact and result.resamples == 2**5
    assert result.raw[0] == pytest.approx(sign_flip_p_value(differences[0, :16]))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"differences": np.array([[1.0, np.inf]])}, "infinity"),
        ({"differences": np.ones((2, 2, 2))}, "matrix"),
        ({"differences": np.ones((1, 30)), "resamples": 0}, "at least 1"),
        ({"differences": np.ones((1, 3)), "exact_max_pairs": 30}, "exact_max_pairs"),
    ],
)
def test_bad_input_says_what_to_do(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(StatsInputError, match=message):
        westfall_young(**kwargs)  # type: ignore[arg-type]
