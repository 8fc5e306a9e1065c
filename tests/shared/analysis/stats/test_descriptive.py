from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps  # type: ignore[import-untyped]

from shared.analysis.stats import StatsInputError, percentiles, summarize, t_interval, wilson_interval
from shared.analysis.stats.descriptive import wilson_bounds

pytestmark = pytest.mark.unit


def test_percentiles_use_linear_interpolation() -> None:
    p = percentiles(list(range(1, 11)))
    assert p.n == 10
    assert p.p50 == pytest.approx(5.5)
    assert p.p95 == pytest.approx(9.55)  # 1 + 0.95 * 9, not the single element sorted[9]
    assert p.p99 == pytest.approx(9.91)


def test_percentiles_of_nothing() -> None:
    assert percentiles([None, float("nan")]).model_dump() == {"n": 0, "p50": None, "p95": None, "p99": None}


def test_t_interval_known_answer() -> None:
    low, high = t_interval(np.array([1.0, 2.0, 3.0, 4.0, 5.0]))  # type: ignore[misc]
    # mean 3, s = sqrt(2.5), t_{0.975, 4} = 2.776445
    half = 2.776445 * math.sqrt(2.5) / math.sqrt(5)
    assert low == pytest.approx(3 - half, abs=1e-5)
    assert high == pytest.approx(3 + half, abs=1e-5)


def test_summary_is_a_ci_of_the_mean_not_of_raw_values() -> None:
    values = [0.0] * 10 + [1.0] * 90
    s = summarize(values, ci_method="t")
    assert s.mean == pytest.approx(0.9)
    assert s.ci_low is not None and s.ci_high is not None
    # Raw-value "percentile CI" would be [0, 1]; the CI of the mean is narrow around 0.9.
    assert 0.83 < s.ci_low < 0.9 < s.ci_high < 0.97


def test_pass_fail_values_get_the_wilson_interval_inside_0_1() -> None:
    s = summarize([0.0] * 10 + [1.0] * 90)
    assert s.ci_method == "wilson"
    # Wilson score interval for 90/100 (e.g. statsmodels proportion_confint(90, 100, method="wilson")).
    assert s.ci_low == pytest.approx(0.8256, abs=1e-4) and s.ci_high == pytest.approx(0.9448, abs=1e-4)
    few = summarize([0.0, 1.0, 1.0, 1.0, 1.0])
    assert few.ci_low is not None and few.ci_high is not None
    assert 0.0 <= few.ci_low < 0.8 < few.ci_high <= 1.0  # the t interval would reach past 1.3
    perfect = summarize([1.0] * 25)
    assert perfect.ci_high == pytest.approx(1.0) and perfect.ci_low == pytest.approx(0.8668, abs=1e-4)
    assert summarize([0.5, 1.0]).ci_method == "bootstrap"  # bounded scores: inside their range
    assert summarize([120.0, 95.5]).ci_method == "t"  # unbounded values (latency)
    with pytest.raises(StatsInputError, match="pass/fail"):
        wilson_interval(np.array([0.5, 1.0]))


def test_summary_drops_missing_and_counts_them() -> None:
    s = summarize([1.0, None, 3.0, float("nan"), True])
    assert (s.n, s.n_dropped) == (3, 2)
    assert s.mean == pytest.approx(5 / 3)
    assert s.median == pytest.approx(1.0)


def test_summary_edge_cases() -> None:
    empty = summarize([])
    assert empty.n == 0 and empty.mean is None and empty.ci_low is None
    one = summarize([0.7])
    assert one.mean == 0.7 and one.sd is None and one.ci_low is None and one.median == 0.7
    flat = summarize([2.0, 2.0, 2.0])
    assert (flat.ci_low, flat.ci_high, flat.sd) == (2.0, 2.0, 0.0)


def test_bootstrap_ci_option_is_reproducible_and_brackets_the_mean() -> None:
    rng = np.random.default_rng(5)
    values = rng.normal(10, 2, 40)
    a = summarize(values, ci_method="bootstrap", seed=3)
    b = summarize(values, ci_method="bootstrap", seed=3)
    t = summarize(values)
    assert a == b
    assert a.ci_method == "bootstrap"
    assert a.ci_low is not None and a.ci_high is not None and t.ci_low is not None
    assert a.ci_low < float(values.mean()) < a.ci_high
    assert a.ci_low == pytest.approx(t.ci_low, abs=0.3)  # both estimate the same interval


def test_invalid_input_is_rejected_with_a_clear_message() -> None:
    with pytest.raises(StatsInputError, match="1-D"):
        summarize(np.ones((2, 2)))
    with pytest.raises(StatsInputError, match="confidence"):
        t_interval(np.array([1.0, 2.0]), confidence=1.5)


def test_large_bounded_samples_get_a_clipped_t_interval_inside_their_range() -> None:
    values = [1.0] * 2_990 + [0.9] * 10  # mean 0.99967, close to the bound
    s = summarize(values)
    assert s.ci_method == "t_clipped"
    assert s.ci_low is not None and s.ci_high is not None
    assert 0.9 <= s.ci_low < s.mean <= s.ci_high <= 1.0  # type: ignore[operator]


@given(
    n=st.integers(min_value=1, max_value=5_000),
    fraction=st.floats(min_value=0.0, max_value=1.0),
    confidence=st.sampled_from([0.8, 0.9, 0.95, 0.99]),
)
@settings(max_examples=300, deadline=None)
def test_wilson_bounds_equal_scipys_wilson_interval(n: int, fraction: float, confidence: float) -> None:
    k = round(fraction * n)
    ci = sps.binomtest(k, n).proportion_ci(confidence_level=confidence, method="wilson")
    assert wilson_bounds(k, n, confidence) == pytest.approx((ci.low, ci.high), abs=1e-12)
