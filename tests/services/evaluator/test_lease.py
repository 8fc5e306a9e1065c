"""The lease beats while the block runs and stops when it exits."""

from __future__ import annotations

import asyncio
import logging
from typing import cast

import nats.errors
import pytest
from nats.aio.msg import Msg

from services.evaluator.lease import keep_lease

pytestmark = pytest.mark.unit


class BeatCounter:
    def __init__(self, wanted: int) -> None:
        self.beats = 0
        self.wanted = wanted
        self.enough = asyncio.Event()

    async def in_progress(self) -> None:
        self.beats += 1
        if self.beats >= self.wanted:
            self.enough.set()


async def test_beats_until_the_block_exits_then_never_again() -> None:
    msg = BeatCounter(wanted=3)
    async with keep_lease(cast(Msg, msg), 0.01):
        await asyncio.wait_for(msg.enough.wait(), 5)
    seen = msg.beats
    done = asyncio.Event()
    asyncio.get_running_loop().call_later(0.05, done.set)  # five intervals later: no beat came
    await done.wait()
    assert msg.beats == seen


async def test_a_failed_beat_is_logged_and_the_next_one_still_comes(caplog: pytest.LogCaptureFixture) -> None:
    class Flaky(BeatCounter):
        async def in_progress(self) -> None:
            await super().in_progress()
            if self.beats == 1:
                raise ConnectionError("connection lost")

    msg = Flaky(wanted=2)
    async with keep_lease(cast(Msg, msg), 0.01):
        await asyncio.wait_for(msg.enough.wait(), 5)
    assert "in-progress ack failed: connection lost" in caplog.text


async def test_a_short_block_sends_no_beat() -> None:
    msg = BeatCounter(wanted=1)
    async with keep_lease(cast(Msg, msg), 60):
        pass
    assert msg.beats == 0


async def test_a_closed_connection_ends_the_lease_quietly(caplog: pytest.LogCaptureFixture) -> None:
    class Closed(BeatCounter):
        async def in_progress(self) -> None:
            await super().in_progress()
            raise nats.errors.ConnectionClosedError

    msg = Closed(wanted=1)
    lease = keep_lease(cast(Msg, msg), 0.01)
    lease.start()  # a batch's lease: started, and left running as a worker that closed would leave it
    await asyncio.wait_for(msg.enough.wait(), 5)
    done = asyncio.Event()
    asyncio.get_running_loop().call_later(0.05, done.set)  # five intervals later: no beat came
    await done.wait()
    assert msg.beats == 1
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    lease.stop()
