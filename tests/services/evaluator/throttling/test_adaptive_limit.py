"""AIMD: starts at the ceiling, halves once per throttling episode, grows back one slot per window."""

from __future__ import annotations

import asyncio

import pytest

from services.evaluator.throttling import AdaptiveLimit
from services.evaluator.throttling.adaptive_limit import DECREASE_SPACING_S

pytestmark = pytest.mark.unit


async def test_starts_at_the_ceiling_and_never_leaves_one_to_ceiling() -> None:
    limit = AdaptiveLimit(ceiling=8)
    assert limit.current == 8
    for step in range(10):
        limit.throttled(now=step * DECREASE_SPACING_S)
    assert limit.current == 1
    for _ in range(1000):
        await limit.succeeded()
    assert limit.current == 8


async def test_one_decrease_per_episode() -> None:
    limit = AdaptiveLimit(ceiling=64)
    assert limit.throttled(now=100.0)
    assert not limit.throttled(now=100.0 + DECREASE_SPACING_S / 2)  # the same burst of 429s
    assert limit.current == 32
    assert limit.throttled(now=100.0 + DECREASE_SPACING_S)
    assert limit.current == 16


async def test_additive_increase_is_one_slot_per_window_of_successes() -> None:
    limit = AdaptiveLimit(ceiling=100)
    limit.limit = 10.0
    for _ in range(10):
        await limit.succeeded()
    assert limit.current in (10, 11)
    for _ in range(11):
        await limit.succeeded()
    assert limit.current >= 11


async def test_acquire_waits_for_a_slot_under_the_current_limit() -> None:
    limit = AdaptiveLimit(ceiling=4)
    limit.throttled(now=0.0)  # 2 slots
    await limit.acquire()
    await limit.acquire()
    third = asyncio.create_task(limit.acquire())
    await asyncio.sleep(0)
    assert not third.done()
    await limit.release()
    await asyncio.wait_for(third, timeout=1)
    assert limit.in_use == 2
