from __future__ import annotations

import pytest

from services.evaluator.retry_policy import backoff_delay, effective_max_deliver, is_last_delivery

pytestmark = pytest.mark.unit


def test_backoff_doubles_from_the_base_per_attempt() -> None:
    assert [backoff_delay(n, 0.5, 100.0) for n in (1, 2, 3, 4)] == [0.5, 1.0, 2.0, 4.0]


def test_backoff_is_capped_even_for_huge_attempt_numbers() -> None:
    assert backoff_delay(5, 0.5, 3.0) == 3.0
    assert backoff_delay(10_000, 0.5, 30.0) == 30.0


def test_backoff_rejects_attempt_zero() -> None:
    with pytest.raises(ValueError, match="counts deliveries from 1"):
        backoff_delay(0, 0.5, 30.0)


@pytest.mark.parametrize(
    ("configured", "consumer", "expected"),
    [(4, 4, 4), (10, 4, 4), (2, 4, 2), (4, -1, 4), (4, 0, 4), (4, None, 4)],
)
def test_effective_max_deliver_never_exceeds_the_servers_limit(
    configured: int, consumer: int | None, expected: int
) -> None:
    assert effective_max_deliver(configured, consumer) == expected


def test_last_delivery() -> None:
    assert not is_last_delivery(3, 4)
    assert is_last_delivery(4, 4)
    assert is_last_delivery(5, 4)
