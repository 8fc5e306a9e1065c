"""The throttle board on a real NATS server: a pause written by one worker reaches the others (and a
worker that starts later), and rate reservations from several workers never overlap."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Callable

import pytest
from nats.aio.client import Client as NatsClient

from services.evaluator.throttling import PauseNotice, ThrottleBoard
from yardstick.api.topology import Topology

pytestmark = pytest.mark.integration


@pytest.fixture
async def boards(
    nats_client: NatsClient, topology: Topology
) -> AsyncIterator[Callable[[str], ThrottleBoard]]:
    started: list[ThrottleBoard] = []

    def make(worker_id: str) -> ThrottleBoard:
        board = ThrottleBoard(nats_client.jetstream(), topology.target_throttle_bucket, worker_id)
        started.append(board)
        return board

    yield make
    for board in started:
        await board.stop()


async def until(condition: Callable[[], bool], timeout: float = 5.0) -> None:
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.01)


async def test_a_pause_reaches_every_worker_and_a_late_one(boards: Callable[[str], ThrottleBoard]) -> None:
    a, b = boards("a"), boards("b")
    await a.start()
    await b.start()
    heard: list[tuple[str, PauseNotice]] = []
    b.on_pause(lambda key, notice: heard.append((key, notice)))
    await a.pause("k1", 30.0, 429)
    await until(lambda: b.paused_for("k1") > 25)
    assert heard and heard[0][0] == "k1" and heard[0][1].worker_id == "a" and heard[0][1].status == 429
    assert b.paused_for("other") == 0
    late = boards("late")
    await late.start()
    await until(lambda: late.paused_for("k1") > 25)


async def test_a_shorter_pause_does_not_shorten_the_current_one(
    boards: Callable[[str], ThrottleBoard],
) -> None:
    a = boards("a")
    await a.start()
    await a.pause("k", 20.0, 429)
    await a.pause("k", 1.0, 429)
    assert a.paused_for("k") > 15


async def test_reservations_from_several_workers_are_spaced_across_all(
    boards: Callable[[str], ThrottleBoard],
) -> None:
    workers = [boards(f"w{i}") for i in range(3)]
    for board in workers:
        await board.start()
    interval = 0.001
    starts = await asyncio.gather(
        *(board.reserve_start("r", interval) for _ in range(100) for board in workers)
    )
    ordered = sorted(starts)
    gaps = [later - earlier for earlier, later in itertools.pairwise(ordered)]
    assert len(starts) == 300 and min(gaps) >= interval * 0.999
