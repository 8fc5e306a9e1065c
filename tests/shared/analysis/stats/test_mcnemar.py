from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps  # type: ignore[import-untyped]

from shared.analysis.stats import StatsInputError, mcnemar_exact

pytestmark = pytest.mark.unit


def test_known_answer() -> None:
    # 7 pairs pass→fail, 1 fail→pass, 4 concordant: exact two-sided p = 2 * P(X ≤ 1 | n=8) = 18/256.
    baseline = [1] * 7 + [0] + [1, 1, 0, 0]
    candidate = [0] * 7 + [1] + [1, 1, 0, 0]
    result = mcnemar_exact(baseline, candidate)
    assert (result.baseline_only, result.candidate_only, result.n_pairs) == (7, 1, 12)
    assert result.p_value == pytest.approx(18 / 256)


def test_no_discordant_pairs_gives_p_one() -> None:
    assert mcnemar_exact([1, 0, 1], [1, 0, 1]).p_value == 1.0
    assert mcnemar_exact([], []).p_value == 1.0


def test_bools_and_missing_values() -> None:
    result = mcnemar_exact([True, False, None, True], [False, False, True, None])
    assert (result.n_pairs, result.n_dropped, result.baseline_only) == (2, 2, 1)


def test_non_binary_values_are_rejected() -> None:
    with pytest.raises(StatsInputError, match="0/1"):
        mcnemar_exact([0.5, 1.0], [1.0, 1.0])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=0, max_size=60))
def test_matches_scipy_binomtest_and_is_symmetric(pairs: list[tuple[bool, bool]]) -> None:
    b = [p[0] for p in pairs]
    c = [p[1] for p in pairs]
    result = mcnemar_exact(b, c)
    n01 = sum(x and not y for x, y in pairs)
    n10 = sum(y and not x for x, y in pairs)
    expected = 1.0 if n01 + n10 == 0 else sps.binomtest(n01, n01 + n10, 0.5).pvalue
    assert result.p_value == pytest.approx(expected)
    assert mcnemar_exact(c, b).p_value == pytest.approx(result.p_value)
