from __future__ import annotations

import pytest

from services.search_proxy.degrade import is_degraded, query_bucket

pytestmark = pytest.mark.unit

QUERIES = [f"query number {i}" for i in range(4000)]


def test_same_query_same_decision() -> None:
    assert query_bucket("redis outage") == query_bucket("redis outage")
    decisions = {is_degraded("redis outage", 0.5) for _ in range(20)}
    assert len(decisions) == 1


@pytest.mark.parametrize("fraction", [0.1, 0.3, 0.5])
def test_degraded_share_matches_the_fraction(fraction: float) -> None:
    share = sum(is_degraded(q, fraction) for q in QUERIES) / len(QUERIES)
    assert abs(share - fraction) < 0.03


def test_raising_the_fraction_only_adds_queries() -> None:
    low = {q for q in QUERIES if is_degraded(q, 0.2)}
    high = {q for q in QUERIES if is_degraded(q, 0.4)}
    assert low < high


def test_zero_is_off_and_one_drops_everything() -> None:
    assert not any(is_degraded(q, 0.0) for q in QUERIES)
    assert all(is_degraded(q, 1.0) for q in QUERIES)
    with pytest.raises(ValueError, match="between 0 and 1"):
        is_degraded("x", 1.5)
