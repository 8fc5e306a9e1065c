"""The smallest p-value a paired test can give: at n pairs (any outcome), and on given pairs.

The tests Yardstick reports are discrete: exact McNemar and the sign-flip tests can only give a
finite set of p-values, so with few pairs (or few pairs that changed) some levels are out of reach.

- ``min_p_at_n(test, n)``: over every possible outcome with n pairs. The most extreme outcome is
  every pair changed in the same direction: exact McNemar (all n pairs discordant one way) and the
  exact sign flip (all 2**n sign patterns, two of them as extreme) both give 2·0.5**n; the Monte
  Carlo sign flip gives at best 1/(B+1). With 4 pairs that is 0.125: no outcome reaches 0.05.
- ``min_p_given(pairs, test, seed)``: conditional on what the test conditions on (Tarone 1990):
  McNemar on the k = b + c discordant pairs (2·0.5**k, 1 when k = 0); the sign flip on the absolute
  differences, whose most extreme signs are all the same (2·0.5**k with k non-zero differences for
  the exact test; for the Monte Carlo test (1 + #patterns constant on those k pairs)/(B+1) under the
  same fixed patterns the test uses, or its lower bound 1/(B+1) when k > 40). A metric whose value
  here exceeds the level it would need cannot be significant whatever the signs, so Tarone's
  refinement of Holm leaves it out of the multiplicity family.
"""

from __future__ import annotations

import math

import numpy as np

from shared.analysis.stats.cleaning import PairedArrays
from shared.analysis.stats.sign_flip import random_sign_bits, resamples_for

_COUNT_EXACTLY_UP_TO = 40  # beyond, a pattern constant on k pairs has odds B·2**(1-k) ≈ 0


def _two_sided_all_one_way(k: int) -> float:
    return 1.0 if k <= 0 else min(1.0, 2.0 * 0.5**k)


def min_p_at_n(test: str | None, n: int) -> float:
    """The smallest p-value ``test`` can give with n complete pairs (1.0 when untestable)."""
    if test is None or n < 2:
        return 1.0
    if test == "sign_flip_monte_carlo":
        return max(_two_sided_all_one_way(n), 1.0 / (resamples_for(n) + 1.0))
    return _two_sided_all_one_way(n)


def pairs_needed_for(test: str, level: float) -> int:
    """The fewest pairs with which some outcome of ``test`` gives p < ``level``: 2·0.5**n < level."""
    n = max(2, math.floor(1.0 + math.log2(1.0 / level)))
    while min_p_at_n(test, n) >= level:
        n += 1
    return n


def min_p_given(pairs: PairedArrays, test: str | None, seed: int = 0) -> float | None:
    """The smallest p-value ``test`` could have given on these pairs' discordant count or absolute
    differences; None when untested (fewer than 2 pairs)."""
    if test is None or pairs.n < 2:
        return None
    changed = pairs.differences != 0.0
    k = int(np.count_nonzero(changed))
    if test != "sign_flip_monte_carlo":  # McNemar: k discordant pairs; exact sign flip: k non-zero
        return _two_sided_all_one_way(k)
    resamples = resamples_for(pairs.n)
    if k == 0:
        return 1.0
    if k > _COUNT_EXACTLY_UP_TO:
        return 1.0 / (resamples + 1.0)
    bits = random_sign_bits(pairs.n, resamples, seed)[:, changed]
    constant = np.count_nonzero(bits.min(axis=1) == bits.max(axis=1))
    return (1.0 + constant) / (resamples + 1.0)


__all__ = ["min_p_at_n", "min_p_given", "pairs_needed_for"]
