"""A/A simulations: the paired tests Yardstick reports keep the false-positive rate at or below alpha.

Baseline and candidate are drawn from the same distribution (an unchanged system scored twice), so
every "significant" result is a false positive. For each number of pairs and each kind of score
the rate over many simulated comparisons must not exceed alpha by more than three standard errors.
The paired bootstrap p-value used before failed this (0.072 at n = 17, about 0.06 at n = 50).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps  # type: ignore[import-untyped]

from shared.analysis.stats import holm_tarone_adjust, mcnemar_exact, min_p_given, pair_values
from shared.analysis.stats.sign_flip import flip_p_values, random_sign_bits, sign_flip_p_value

pytestmark = pytest.mark.unit

ALPHA = 0.05
REPLICATES = 4000
PATTERNS = 999  # the p-value is valid for any number of sign patterns; production draws more


def _bound(replicates: int) -> float:
    return ALPHA + 3 * math.sqrt(ALPHA * (1 - ALPHA) / replicates)


def _differences(kind: str, n: int, rng: np.random.Generator) -> np.ndarray:
    """(REPLICATES, n) candidate - baseline under the null, with item-to-item variation."""
    if kind == "continuous":
        item = rng.normal(0.7, 0.15, size=(REPLICATES, n))
        return (item + rng.normal(0, 0.1, item.shape)) - (item + rng.normal(0, 0.1, item.shape))
    grades = np.linspace(0.0, 1.0, 5)  # partial credit: 0, .25, .5, .75, 1 with per-item odds
    weights = rng.dirichlet(np.ones(5), size=(REPLICATES, n))
    cumulative = weights.cumsum(axis=2)
    draw = lambda: grades[(rng.random((REPLICATES, n, 1)) > cumulative).sum(axis=2)]  # noqa: E731
    return draw() - draw()


@pytest.mark.parametrize("kind", ["continuous", "partial_credit"])
@pytest.mark.parametrize("n", [17, 25, 50, 200])
def test_monte_carlo_sign_flip_is_calibrated(kind: str, n: int) -> None:
    rng = np.random.default_rng(1000 + n)
    p = flip_p_values(_differences(kind, n, rng), random_sign_bits(n, PATTERNS, seed=7))
    rate = float(np.mean(p <= ALPHA))
    assert rate <= _bound(REPLICATES), f"A/A false-positive rate {rate:.4f} at n={n} ({kind})"
    assert rate > 0.02, f"implausibly conservative ({rate:.4f}): is the test looking at the data?"


@pytest.mark.parametrize("n", [5, 12])
def test_exact_sign_flip_is_calibrated(n: int) -> None:
    rng = np.random.default_rng(n)
    replicates = 600
    diffs = _differences("continuous", n, rng)[:replicates]
    rate = float(np.mean([(sign_flip_p_value(d) or 1.0) <= ALPHA for d in diffs]))
    assert rate <= _bound(replicates), f"A/A false-positive rate {rate:.4f} at n={n}"


@pytest.mark.parametrize("n", [17, 60])
def test_mcnemar_is_calibrated_for_pass_fail_scores(n: int) -> None:
    rng = np.random.default_rng(n)
    replicates = 2000
    odds = rng.uniform(0.3, 0.9, size=(replicates, n))  # each item its own pass probability
    base = (rng.random((replicates, n)) < odds).astype(float)
    cand = (rng.random((replicates, n)) < odds).astype(float)
    rate = float(np.mean([mcnemar_exact(b, c).p_value <= ALPHA for b, c in zip(base, cand, strict=True)]))
    assert rate <= _bound(replicates), f"A/A false-positive rate {rate:.4f} at n={n} (pass/fail)"


def test_holm_tarone_family_keeps_the_family_wise_error_rate() -> None:
    """A/A families of six metrics, three pass/fail with little churn (often no discordant pair, so
    Tarone drops them) and three partial-credit scores that rarely change: the chance that any metric
    of the family is called significant stays at or below alpha."""
    rng = np.random.default_rng(2024)
    replicates, n = 2000, 30
    bits = random_sign_bits(n, PATTERNS, seed=3)
    churn = rng.uniform(0.0, 0.15, size=(replicates, 3, 1))  # per metric: pairs that flip, both ways
    u = rng.random((replicates, 3, n))
    b = np.count_nonzero(u < churn / 2, axis=2)
    c = np.count_nonzero((u >= churn / 2) & (u < churn), axis=2)
    k = b + c
    mcnemar_p = np.where(k == 0, 1.0, np.minimum(1.0, 2.0 * sps.binom.cdf(np.minimum(b, c), k, 0.5)))
    mcnemar_floor = np.minimum(1.0, 2.0 * 0.5**k)
    changed = rng.random((replicates, 3, n)) < rng.uniform(0.05, 0.5, size=(replicates, 3, 1))
    diffs = np.where(changed, rng.normal(0.0, 0.3, size=(replicates, 3, n)), 0.0)
    flip_p = flip_p_values(diffs.reshape(-1, n), bits).reshape(replicates, 3)
    flip_floor = np.array(
        [
            [min_p_given(pair_values(np.zeros(n), d), "sign_flip_monte_carlo", 3) or 1.0 for d in row]
            for row in diffs
        ]
    )
    false_positive = 0
    for i in range(replicates):
        p = [*mcnemar_p[i], *flip_p[i]]
        floors = [*mcnemar_floor[i], *flip_floor[i]]
        false_positive += any(q is not None and q < ALPHA for q in holm_tarone_adjust(p, floors, ALPHA))
    rate = false_positive / replicates
    assert rate <= _bound(replicates), f"family-wise error rate {rate:.4f} with Tarone's refinement"
