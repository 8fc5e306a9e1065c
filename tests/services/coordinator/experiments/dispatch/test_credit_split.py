"""Splitting an experiment's concurrency over the live eval workers in proportion to their slots."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.coordinator.experiments.dispatch.credit_split import split_credits
from shared.contracts.capacity import WorkerCapacity

pytestmark = pytest.mark.unit


def worker(worker_id: str, slots: int, *, draining: bool = False) -> WorkerCapacity:
    return WorkerCapacity(worker_id=worker_id, concurrency=slots, in_flight=0, draining=draining)


def test_equal_workers_share_equally_and_the_shares_sum_to_c() -> None:
    assert split_credits(50, [worker("a", 256), worker("b", 256)]) == {"a": 25, "b": 25}
    assert split_credits(7, [worker("a", 8), worker("b", 8)]) in ({"a": 4, "b": 3}, {"a": 3, "b": 4})


def test_shares_follow_the_slots() -> None:
    grants = split_credits(31, [worker("small", 11), worker("big", 21)])
    assert grants == {"small": 11, "big": 20}  # 1 each, then 29 split 10:20 (slots left 10 and 20)


def test_a_draining_worker_and_one_without_slots_get_nothing() -> None:
    fleet = [worker("a", 8), worker("gone", 8, draining=True), worker("none", 0)]
    assert split_credits(6, fleet) == {"a": 6, "gone": 0, "none": 0}


def test_no_worker_gets_more_than_its_slots_when_c_exceeds_the_fleet() -> None:
    assert split_credits(1000, [worker("a", 4), worker("b", 8)]) == {"a": 4, "b": 8}


def test_no_grant_without_an_able_worker_or_with_fewer_credits_than_workers() -> None:
    assert split_credits(5, []) is None
    assert split_credits(5, [worker("a", 8, draining=True)]) is None
    assert split_credits(1, [worker("a", 8), worker("b", 8)]) is None


@given(
    c=st.integers(min_value=1, max_value=3000),
    slots=st.lists(st.integers(min_value=0, max_value=1000), min_size=1, max_size=12),
)
def test_every_split_sums_to_what_can_run_and_respects_slots(c: int, slots: list[int]) -> None:
    fleet = [worker(f"w{i}", s) for i, s in enumerate(slots)]
    grants = split_credits(c, fleet)
    able = [s for s in slots if s > 0]
    if not able or c < len(able):
        assert grants is None
        return
    assert grants is not None
    assert sum(grants.values()) == min(c, sum(able))
    for i, s in enumerate(slots):
        assert (grants[f"w{i}"] >= 1 if s > 0 else grants[f"w{i}"] == 0) and grants[f"w{i}"] <= s
