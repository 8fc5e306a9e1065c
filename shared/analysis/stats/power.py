"""Power of the paired tests: the minimum detectable effect (MDE) and the pairs a change needs.

The MDE is the smallest true change of a metric's mean that the test Yardstick reports would find
significant at level ``level`` with probability ``power`` (80 % by default), two-sided.

Continuous scores (exact sign flip up to 16 pairs, Monte Carlo sign flip beyond). Model: the n
paired differences are independent with mean δ and standard deviation s. The sign-flip test's
permutation distribution of Σd is approximately normal with variance Σd², so it rejects when
S = Σd / sqrt(Σd²) passes a = z₍₁₋level/2₎. S = t / sqrt((n - 1)/n + t²/n) is increasing in the
one-sample t statistic, so that is t > c with c = a·sqrt((n - 1)/(n - a²)), and t is noncentral t
with n - 1 degrees of freedom and noncentrality √n·δ/s:

    power(δ) = P(|T(n - 1, √n·δ/s)| > c)        MDE = the δ with power(δ) = target (bisection)
    n for a change δ = the smallest n with power ≥ target, from n ≈ ((a + b)·s/δ)², b = z₍power₎

For large n this is the familiar MDE ≈ (a + b)·s/√n. With fewer than 1 + log2(1/level) pairs no
outcome of the exact test reaches the level (its smallest p-value is 2·0.5ⁿ): no MDE.

Pass/fail scores (exact McNemar). Model: each pair flips pass → fail with probability v/2 + δ
and fail → pass with probability v/2 (v = "churn", changes that cancel out). Given K = k discordant
pairs (K ~ Binomial(n, v + δ)), the test rejects when the bad count B ~ Binomial(k, q),
q = (v/2 + δ)/(v + δ), lands in the exact two-sided region {B ≤ cₖ} or {B ≥ k - cₖ}, cₖ the
largest c with 2·F(c; k, ½) < level. The power is computed exactly, Σₖ P(K = k)·P(reject | k), so
its discreteness (no rejection at all with k < 1 + log2(1/level)) is in the figure; the MDE is its
root in δ (Brent's method, first just above the normal approximation's MDE). The sum runs over
the k within 9 standard deviations (+10) of K's mean (the rest weighs under 1e-17), the tails of
B by a recurrence over k (``_rejection_tails``: two incomplete betas, not two per k), and cₖ is
computed once per k and level.

Inputs. In a comparison s is the standard deviation of the observed paired differences (or, when
every difference is equal, the baseline's standard deviation, i.e. a correlation of 0.5 between the
runs), and v = 2·min(b, c)/n, the churn the comparison saw. Planning from one run uses a correlation
r between the runs' scores of an item: s = sqrt(2(1 - r))·sd, and for a pass rate p,
v = 2(1 - r)·p(1 - p).
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
from scipy import stats as sps  # type: ignore[import-untyped]  # no scipy-stubs in dev deps
from scipy.optimize import brentq  # type: ignore[import-untyped]
from scipy.special import bdtr, bdtrc, gammaln, nctdtr, ndtri, xlog1py, xlogy  # type: ignore[import-untyped]

from shared.analysis.stats.attainable import min_p_at_n, pairs_needed_for
from shared.analysis.stats.cleaning import FloatArray
from shared.analysis.stats.errors import StatsInputError
from shared.analysis.stats.sign_flip import EXACT_MAX_PAIRS

DEFAULT_POWER = 0.8
IntArray = npt.NDArray[np.int64]
EXACT_POWER_MAX_PAIRS = 5_000
"""Beyond, McNemar's sample size comes from the normal approximation (Connor 1987) alone."""


def _quantiles(level: float, power: float) -> tuple[float, float]:
    if not 0.0 < level < 1.0 or not 0.0 < power < 1.0:
        raise StatsInputError(f"level and power must lie strictly between 0 and 1, got {level}, {power}")
    return float(ndtri(1.0 - level / 2.0)), float(ndtri(power))  # the normal quantiles (norm.ppf)


def _sign_flip_test(n: int) -> str:
    return "sign_flip_exact" if n <= EXACT_MAX_PAIRS else "sign_flip_monte_carlo"


def sign_flip_power(n: int, shift: float, sd: float, level: float) -> float:
    """Approximate power of the sign-flip test for a mean change ``shift`` with noise ``sd``: the
    noncentral t tail beyond c = a·sqrt((n - 1)/(n - a²)) (module docstring)."""
    a, _ = _quantiles(level, 0.5)
    if n <= a * a or min_p_at_n(_sign_flip_test(n), n) >= level:
        return 0.0
    if sd <= 0.0:
        return 1.0 if shift != 0.0 else 0.0
    c = a * math.sqrt((n - 1.0) / (n - a * a))
    ncp = math.sqrt(n) * abs(shift) / sd
    # the noncentral t's CDF as scipy.stats.nct computes it, without its per-call argument checks
    # (0.7 ms a call; a comparison's MDEs call it thousands of times)
    return float(1.0 - nctdtr(n - 1, ncp, c) + nctdtr(n - 1, ncp, -c))


def mde_continuous(n: int, sd: float, level: float, power: float = DEFAULT_POWER) -> float | None:
    """The sign-flip test's MDE with n pairs and noise ``sd`` (bisection on ``sign_flip_power``);
    None when no change is detectable with n pairs."""
    _quantiles(level, power)
    if sign_flip_power(n, sd if sd > 0 else 1.0, sd, level) <= 0.0:
        return None
    if sd <= 0.0:
        return 0.0
    low, high = 0.0, sd
    while sign_flip_power(n, high, sd, level) < power:
        low, high = high, 2.0 * high
    for _ in range(50):
        mid = (low + high) / 2.0
        low, high = (low, mid) if sign_flip_power(n, mid, sd, level) >= power else (mid, high)
    return high


def pairs_for_continuous(drop: float, sd: float, level: float, power: float = DEFAULT_POWER) -> int:
    """Pairs the sign-flip test needs to detect a change ``drop`` with noise ``sd``: from the normal
    approximation n ≈ ((a + b)·s/δ)², then the power function from a little below it."""
    if drop == 0.0:
        raise StatsInputError("the change to detect must not be 0")
    a, b = _quantiles(level, power)
    n = max(pairs_needed_for("sign_flip_exact", level), math.floor(a * a) + 1)
    n = max(n, int(((a + b) * sd / abs(drop)) ** 2 * 0.8))
    while sign_flip_power(n, drop, sd, level) < power:
        n += max(1, n // 200)
    return n


_TAIL_SDS = 9.0
"""Discordant counts further than this many standard deviations (+10) from the mean carry less
than 1e-17 of the binomial's mass: the power sums over the counts within."""
_CRITICAL: dict[float, FloatArray] = {}
"""Per level, cₖ by k (NaN: not computed yet); the binomial quantiles cost 0.1 s per 10,000 k."""
_CRITICAL_LEVELS = 64


def _likely_counts(n: int, p: float) -> IntArray:
    """The discordant counts k of Binomial(n, p) worth summing over (module docstring)."""
    mean, sd = n * p, math.sqrt(n * p * (1.0 - p))
    low = max(0, math.floor(mean - _TAIL_SDS * sd - 10.0))
    high = min(n, math.ceil(mean + _TAIL_SDS * sd + 10.0))
    return np.arange(low, high + 1)


def _critical_counts(level: float, k: IntArray) -> FloatArray:
    """cₖ for each k: the largest c with 2·F(c; k, ½) < level (-1 and below: no rejection);
    remembered per level, so the bisection of an MDE computes each k once."""
    known = _CRITICAL.get(level)
    top = int(k[-1]) + 1 if k.size else 0
    if known is None or known.size < top:
        grown = np.full(max(top, 1), np.nan)
        if known is not None:
            grown[: known.size] = known
        if known is None and len(_CRITICAL) >= _CRITICAL_LEVELS:
            _CRITICAL.clear()
        _CRITICAL[level] = known = grown
    todo = k[np.isnan(known[k])]
    if todo.size:
        crit = sps.binom.ppf(level / 2.0, todo, 0.5) - 1.0  # largest c with F(c) < level/2 ...
        known[todo] = np.where(2.0 * sps.binom.cdf(crit, todo, 0.5) < level, crit, crit - 1.0)  # ... rounded
    return known[k]


_LOG_FACTORIALS: list[FloatArray] = [np.zeros(1)]
"""log(j!) for j = 0, 1, ...: grown on demand (gammaln of 10,000 counts costs 0.2 ms, once)."""


def _log_factorials(top: int) -> FloatArray:
    """log(j!) for j = 0..``top`` at least."""
    if _LOG_FACTORIALS[0].size <= top:
        _LOG_FACTORIALS[0] = gammaln(np.arange(max(top + 1, 2 * _LOG_FACTORIALS[0].size)) + 1.0)
    return _LOG_FACTORIALS[0]


def _binomial_pmf(k: IntArray | FloatArray, n: int | IntArray, p: float) -> FloatArray:
    """P(K = k) for K ~ Binomial(n, p), from a table of log-factorials (scipy.stats.binom.pmf's
    argument checks cost twice the sum itself; relative error below 1e-10 at n = 10,000)."""
    kk = np.asarray(k, dtype=np.int64)
    nn = np.asarray(n, dtype=np.int64)
    table = _log_factorials(int(np.max(nn)) if nn.size else 0)
    if 0.0 < p < 1.0:  # x·log(p) with the logarithm taken once (xlogy takes it per element)
        log_pmf = table[nn] - table[kk] - table[nn - kk] + kk * math.log(p) + (nn - kk) * math.log1p(-p)
    else:
        log_pmf = table[nn] - table[kk] - table[nn - kk] + xlogy(kk, p) + xlog1py(nn - kk, -p)
    out: FloatArray = np.exp(log_pmf)
    return out


def _rejection_tails(k: IntArray, crit: FloatArray, q: float) -> FloatArray:
    """P(B ≤ cₖ) + P(B ≥ k - cₖ) for B ~ Binomial(k, q), for consecutive k (0 where cₖ < 0): the
    incomplete beta at the first rejecting k, then the recurrences over k, with j = the step of cₖ
    from k to k + 1 (cₖ never falls and rises by at most one per k; the incomplete beta at every k
    otherwise):

        P(Bₖ₊₁ ≤ cₖ₊₁)     = P(Bₖ ≤ cₖ) - q·P(Bₖ = cₖ) + j·P(Bₖ₊₁ = cₖ + 1)
        P(Bₖ₊₁ ≥ mₖ₊₁) = P(Bₖ ≥ mₖ) + q·P(Bₖ = mₖ - 1) - (1 - j)·P(Bₖ₊₁ = mₖ),  m = k - c

    The cumulative sums' rounding stays under 1e-12 at 10,000 pairs."""
    out = np.zeros(k.size)
    first = int(np.argmax(crit >= 0)) if crit.size and crit[-1] >= 0 else k.size
    if first == k.size:
        return out
    ks, c = k[first:], crit[first:]
    m = ks - c
    rises = np.diff(c)
    if np.any((rises != 0.0) & (rises != 1.0)):
        out[first:] = bdtr(c, ks, q) + bdtrc(m - 1.0, ks, q)
        return out
    k0, c0, m0, k1 = ks[:-1], c[:-1], m[:-1], ks[:-1] + 1
    steps = (
        q * (_binomial_pmf(m0 - 1.0, k0, q) - _binomial_pmf(c0, k0, q))
        + rises * _binomial_pmf(c0 + 1.0, k1, q)
        - (1.0 - rises) * _binomial_pmf(m0, k1, q)
    )
    out[first] = bdtr(c[0], ks[0], q) + bdtrc(m[0] - 1.0, ks[0], q)
    out[first + 1 :] = out[first] + np.cumsum(steps)
    return out


def mcnemar_power(n: int, drop: float, churn: float, level: float) -> float:
    """Exact power of the two-sided exact McNemar test (see the module docstring)."""
    drop = abs(drop)
    discordant = churn + drop
    if n < 1 or discordant <= 0.0:
        return 0.0
    if discordant > 1.0 + 1e-12:
        raise StatsInputError(f"churn {churn} + change {drop} exceed 1: no pair can flip that often")
    k = _likely_counts(n, min(1.0, discordant))
    crit = _critical_counts(level, k)
    q = (churn / 2.0 + drop) / discordant
    rejects = _rejection_tails(k, crit, q)
    weights = _binomial_pmf(k, n, min(1.0, discordant))
    return float(np.sum(weights * np.minimum(1.0, rejects)))


def _approximate_mde_pass_fail(n: int, churn: float, level: float, power: float, top: float) -> float:
    """The normal approximation's McNemar MDE (Connor 1987; ``pairs_for_pass_fail`` inverted): the δ
    in (0, ``top``] with √n·δ = a·√π + b·√(π - δ²), π = v + δ; ``top`` when there is none."""
    a, b = _quantiles(level, power)

    def excess(d: float) -> float:
        pi = churn + d
        return (a * math.sqrt(pi) + b * math.sqrt(max(0.0, pi - d * d))) / math.sqrt(n) - d

    if excess(top) >= 0.0:
        return top
    root: float = brentq(excess, 0.0, top, xtol=1e-9 * top)
    return root


_BRACKETS = ((0.0, 0.025), (0.1, 0.1))
"""The exact MDE is looked for within 0 to +2.5 % of the normal approximation's (which falls 0.4 to
1.6 % short of it from 500 to 10,000 pairs), then within ±10 %, then on the whole range: a narrow
bracket saves most of the exact power evaluations."""


def mde_pass_fail(n: int, churn: float, level: float, power: float = DEFAULT_POWER) -> float | None:
    """McNemar's MDE (a change of the pass rate) with n pairs and churn v; None when even the
    largest possible change (every pair flipping, 1 - v) has less than ``power``."""
    _quantiles(level, power)
    churn = min(max(churn, 0.0), 1.0)
    top = 1.0 - churn
    if top <= 0.0:
        return None
    seen: dict[float, float] = {}

    def shortfall(d: float) -> float:  # remembered: a bracket's ends are evaluated once
        if d not in seen:
            seen[d] = mcnemar_power(n, d, churn, level) - power
        return seen[d]

    # the root of the power curve to 1e-12 of the range, in the first bracket around the normal
    # approximation's MDE whose ends straddle it (the power rises with the change: a bracket's upper
    # end with enough power means the largest change has enough too)
    guess = _approximate_mde_pass_fail(n, churn, level, power, top)
    for low, high in (
        *((guess * (1.0 - below), min(top, guess * (1.0 + above))) for below, above in _BRACKETS),
        (0.0, top),
    ):
        if shortfall(high) >= 0.0 and shortfall(low) < 0.0:
            root: float = brentq(shortfall, low, high, xtol=1e-12 * top)
            return root
    return None


def pairs_for_pass_fail(drop: float, churn: float, level: float, power: float = DEFAULT_POWER) -> int:
    """Pairs exact McNemar needs to detect a change ``drop`` of the pass rate with churn v: the normal
    approximation n = (a·√π + b·√(π - δ²))² / δ² (π = v + δ), then the exact power from there."""
    if drop == 0.0:
        raise StatsInputError("the change to detect must not be 0")
    a, b = _quantiles(level, power)
    drop = abs(drop)
    discordant = churn + drop
    approx = math.ceil(
        (a * math.sqrt(discordant) + b * math.sqrt(max(0.0, discordant - drop**2))) ** 2 / drop**2
    )
    n = max(pairs_needed_for("mcnemar_exact", level), approx)
    if approx > EXACT_POWER_MAX_PAIRS:
        return n
    n = max(pairs_needed_for("mcnemar_exact", level), int(approx * 0.7))
    while mcnemar_power(n, drop, churn, level) < power:
        n += 1
    return n


def planning_spread(sd: float, correlation: float) -> float:
    """s of the paired differences for two runs whose item scores correlate ``correlation``."""
    return math.sqrt(max(0.0, 2.0 * (1.0 - correlation))) * sd


def planning_churn(pass_rate: float, correlation: float) -> float:
    """v = 2(1 - r)·p(1 - p): the share of pairs that flip either way when nothing changes."""
    return max(0.0, 2.0 * (1.0 - correlation) * pass_rate * (1.0 - pass_rate))


__all__ = [
    "DEFAULT_POWER",
    "mcnemar_power",
    "mde_continuous",
    "mde_pass_fail",
    "pairs_for_continuous",
    "pairs_for_pass_fail",
    "planning_churn",
    "planning_spread",
    "sign_flip_power",
]
