"""The gate retries a throttled call inside the same delivery and gives up only after the longest
wait; a board that is not started keeps its pauses in the worker (no NATS needed here)."""

from __future__ import annotations

import itertools
import time
from typing import Any

import pytest

from services.evaluator.errors import TargetThrottled, TargetUnavailable, ThrottledTooLong
from services.evaluator.targets.base import TargetOutput
from services.evaluator.throttling import TargetGate, ThrottleBoard, ThrottleTally
from yardstick.api.agent_messages import TokenUsage
from yardstick.api.eval_messages import AgentTarget, EvalTask, HttpTarget, RateLimit

pytestmark = pytest.mark.unit

TASK = EvalTask(
    experiment_id="e", item_id="i", input={}, target=HttpTarget(url="http://a.example/x"), concurrency=5
)


def gate(max_wait_s: float = 10.0) -> TargetGate:
    board = ThrottleBoard(js=None, bucket="unused", worker_id="w")  # type: ignore[arg-type]
    return TargetGate(board, ceiling=16, max_wait_s=max_wait_s)


class Script:
    """Answers the gate's attempts from a list: an exception to raise or an output to return."""

    def __init__(self, *answers: Any) -> None:
        self.answers = list(answers)
        self.calls = 0

    async def __call__(self) -> TargetOutput:
        self.calls += 1
        answer = self.answers.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        return TargetOutput(output=answer)


def throttled(seconds: float | None) -> TargetThrottled:
    return TargetThrottled("429", status=429, retry_after_s=seconds)


async def test_throttles_are_waited_out_and_counted_then_the_answer_returned() -> None:
    script = Script(throttled(0.02), throttled(0.3), {"ok": True})
    tally = ThrottleTally()
    output = await gate().call(TASK, script, tally)
    assert output.output == {"ok": True} and script.calls == 3
    assert tally.throttled == 2 and tally.waited_s >= 0.3
    assert tally.concurrency is not None and tally.concurrency <= 5  # never above the experiment's C


async def test_waiting_longer_than_allowed_is_an_error_saying_so() -> None:
    script = Script(throttled(5.0), {"never": "reached"})
    tally = ThrottleTally()
    with pytest.raises(ThrottledTooLong, match="EVAL_THROTTLE_MAX_WAIT_S=1s"):
        await gate(max_wait_s=1.0).call(TASK, script, tally)
    assert script.calls == 1 and tally.throttled == 1


async def test_a_real_failure_goes_through_at_once() -> None:
    script = Script(TargetUnavailable("500"))
    with pytest.raises(TargetUnavailable):
        await gate().call(TASK, script, ThrottleTally())
    assert script.calls == 1


async def test_without_nats_the_token_debt_is_kept_by_this_worker() -> None:
    target = HttpTarget(url="http://a.example/x", rate_limit=RateLimit(tokens_per_minute=60_000))
    task = TASK.model_copy(update={"target": target})
    starts: list[float] = []

    async def spend() -> TargetOutput:
        starts.append(time.time())
        return TargetOutput(output={}, usage=TokenUsage(input_tokens=200, output_tokens=100))

    the_gate = gate()
    for _ in range(2):
        await the_gate.call(task, spend, ThrottleTally())
    assert starts[1] - starts[0] >= 0.3 - 0.05  # 300 tokens at 1,000 a second


async def test_an_agent_targets_rate_limit_spaces_its_calls() -> None:
    target = AgentTarget(rate_limit=RateLimit(requests=20, per="second"))
    task = TASK.model_copy(update={"target": target})
    starts: list[float] = []

    async def answer() -> TargetOutput:
        starts.append(time.time())
        return TargetOutput(output={})

    the_gate = gate()
    for _ in range(3):
        await the_gate.call(task, answer, ThrottleTally())
    assert min(b - a for a, b in itertools.pairwise(starts)) >= 0.05 - 0.01  # 20 a second
