"""A span message is acknowledged once every trace part it fed has been stored, never before."""

from __future__ import annotations

import pytest

from services.sampler.message_holds import MessageHolds

pytestmark = pytest.mark.unit

A = ("p", "a" * 32)
B = ("p", "b" * 32)


def test_a_message_waits_for_every_trace_it_fed() -> None:
    holds: MessageHolds[int] = MessageHolds()
    acked: list[int] = []
    assert holds.hold(1, [A, B])
    assert holds.hold(2, [B])
    holds.release(holds.hand_on(A, still_open=False), acked.append)
    assert acked == [] and len(holds) == 2
    holds.release(holds.hand_on(B, still_open=False), acked.append)
    assert sorted(acked) == [1, 2] and len(holds) == 0


def test_a_part_handed_on_while_its_trace_stays_open_keeps_the_message() -> None:
    holds: MessageHolds[int] = MessageHolds()
    acked: list[int] = []
    holds.hold(1, [A])
    first = holds.hand_on(A, still_open=True)  # span bound reached inside message 1
    holds.release(first, acked.append)
    assert acked == []
    holds.release(holds.hand_on(A, still_open=False), acked.append)
    assert acked == [1]


def test_a_message_with_no_spans_is_not_held_and_a_dropped_one_is_never_acked() -> None:
    holds: MessageHolds[int] = MessageHolds()
    acked: list[int] = []
    assert not holds.hold(1, [])
    holds.hold(2, [A])
    held = holds.hand_on(A, still_open=False)
    holds.drop({2})
    holds.release(held, acked.append)
    assert acked == [] and len(holds) == 0
