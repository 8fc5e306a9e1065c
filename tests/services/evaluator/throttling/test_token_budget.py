"""A target's ``tokens_per_minute`` on a real NATS server: each call's reported tokens put the target
in debt for tokens * 60 / tokens_per_minute seconds, and no call starts, on any worker, before the
debt is paid."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
from nats.aio.client import Client as NatsClient

from services.evaluator.targets.base import TargetOutput
from services.evaluator.throttling import TargetGate, ThrottleBoard, ThrottleTally
from yardstick.api.agent_messages import TokenUsage
from yardstick.api.eval_messages import EvalTask, HttpTarget, RateLimit
from yardstick.api.topology import Topology

pytestmark = [pytest.mark.integration, pytest.mark.timeout(60)]

TPM = 60_000
TOKENS = 1_000  # 1 s of debt per call
TOLERANCE_S = 0.05


def task(url: str) -> EvalTask:
    target = HttpTarget(url=url, rate_limit=RateLimit(tokens_per_minute=TPM))
    return EvalTask(experiment_id="e", item_id="i", input={}, target=target, concurrency=4)


class Spender:
    """An attempt that records when it started and reports ``tokens`` (or no usage)."""

    def __init__(self, tokens: int | None) -> None:
        self.tokens = tokens
        self.starts: list[float] = []

    async def __call__(self) -> TargetOutput:
        self.starts.append(time.time())
        usage = None if self.tokens is None else TokenUsage(total_tokens=self.tokens)
        return TargetOutput(output={"ok": True}, usage=usage)


@pytest.fixture
async def gates(
    nats_client: NatsClient, topology: Topology
) -> AsyncIterator[Callable[[str], Awaitable[TargetGate]]]:
    started: list[ThrottleBoard] = []

    async def make(worker_id: str) -> TargetGate:
        board = ThrottleBoard(nats_client.jetstream(), topology.target_throttle_bucket, worker_id)
        await board.start()
        started.append(board)
        return TargetGate(board, ceiling=4, max_wait_s=30.0)

    yield make
    for board in started:
        await board.stop()


async def test_consecutive_calls_start_a_second_apart_after_the_first(
    gates: Callable[[str], Awaitable[TargetGate]],
) -> None:
    gate = await gates("w1")
    spender = Spender(TOKENS)
    began = time.time()
    for _ in range(3):
        await gate.call(task("http://tokens-a.example/x"), spender, ThrottleTally())
    assert spender.starts[0] - began < 0.5  # no debt yet: the first call starts at once
    gaps = [later - earlier for earlier, later in zip(spender.starts, spender.starts[1:], strict=False)]
    assert all(gap >= 1.0 - TOLERANCE_S for gap in gaps), gaps
    assert all(gap < 3.0 for gap in gaps), gaps


async def test_two_workers_share_the_debt(gates: Callable[[str], Awaitable[TargetGate]]) -> None:
    first = await gates("w1")
    second = await gates("w2")
    spender = Spender(TOKENS * 2)  # 2 s of debt
    await first.call(task("http://tokens-b.example/x"), spender, ThrottleTally())
    await second.call(task("http://tokens-b.example/x"), spender, ThrottleTally())
    assert spender.starts[1] - spender.starts[0] >= 2.0 - TOLERANCE_S, spender.starts


async def test_calls_that_report_no_usage_run_up_no_debt(
    gates: Callable[[str], Awaitable[TargetGate]],
) -> None:
    gate = await gates("w1")
    spender = Spender(None)
    began = time.time()
    for _ in range(5):
        await gate.call(task("http://tokens-c.example/x"), spender, ThrottleTally())
    assert time.time() - began < 0.9  # five calls, not even one second of debt
