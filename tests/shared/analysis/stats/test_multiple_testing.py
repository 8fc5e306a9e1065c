from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shared.analysis.stats import StatsInputError, holm_adjust, holm_reject, holm_tarone_adjust, tarone_size

pytestmark = pytest.mark.unit


def test_known_answer_keeps_input_order_and_none() -> None:
    # sorted: 0.005*4=0.02, 0.01*3=0.03, 0.03*2=0.06, max(0.04*1, 0.06)=0.06
    adjusted = holm_adjust([0.01, 0.04, 0.03, None, 0.005])
    assert adjusted == pytest.approx([0.03, 0.06, 0.06, None, 0.02])  # type: ignore[arg-type]
    assert adjusted[3] is None


def test_reject_at_alpha() -> None:
    assert holm_reject([0.01, 0.04, 0.03, None, 0.005], alpha=0.05) == [True, False, False, False, True]


def test_caps_at_one_and_handles_empty() -> None:
    assert holm_adjust([0.6, 0.9]) == [1.0, 1.0]
    assert holm_adjust([]) == []
    assert holm_adjust([None]) == [None]


def test_invalid_p_values_are_rejected() -> None:
    with pytest.raises(StatsInputError, match=r"\[0, 1\]"):
        holm_adjust([0.1, 1.5])
    with pytest.raises(StatsInputError, match="alpha"):
        holm_reject([0.1], alpha=0)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=25))
def test_properties(p_values: list[float]) -> None:
    adjusted = holm_adjust(p_values)
    m = len(p_values)
    values = [a for a in adjusted if a is not None]
    assert len(values) == m
    for raw, adj in zip(p_values, values, strict=True):
        assert raw <= adj + 1e-15 <= 1.0 + 1e-15
    # The smallest p-value is adjusted exactly like Bonferroni.
    assert min(values) == pytest.approx(min(1.0, m * min(p_values)))
    # Adjustment preserves the order of the raw p-values.
    order = sorted(range(m), key=lambda i: p_values[i])
    assert all(values[order[i]] <= values[order[i + 1]] + 1e-15 for i in range(m - 1))


def test_tarone_leaves_metrics_that_cannot_be_significant_out_of_the_family() -> None:
    # one metric changed on 7 of 7 discordant pairs (p = 2 x 0.5**7); five had no discordant pair
    p = [2 * 0.5**7, 1.0, 1.0, 1.0, 1.0, 1.0]
    floors = [2 * 0.5**7, 1.0, 1.0, 1.0, 1.0, 1.0]
    assert holm_adjust(p)[0] == pytest.approx(6 * 2 * 0.5**7)  # Holm: 0.094, not significant
    assert holm_tarone_adjust(p, floors, 0.05)[0] == pytest.approx(2 * 0.5**7)  # Tarone: 0.016
    assert tarone_size(floors, 0.05) == 1


def test_holm_tarone_is_holm_when_every_metric_could_be_significant() -> None:
    p = [0.01, 0.02, 0.2, None, 0.04]
    floors = [1e-6, 1e-6, 1e-6, None, 1e-6]
    tarone, holm = holm_tarone_adjust(p, floors, 0.05), holm_adjust(p)
    assert tarone[3] is None and holm[3] is None
    assert [tarone[i] for i in (0, 1, 2, 4)] == pytest.approx([holm[i] for i in (0, 1, 2, 4)])
    assert tarone_size([], 0.05) == 0
