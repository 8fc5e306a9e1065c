"""What every target does: turn one task into an output dict, or raise a classified error."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from yardstick.api.agent_messages import TokenUsage
from yardstick.api.eval_messages import EvalTask


@dataclass(frozen=True)
class CallContext:
    """Who is calling, sent along as request headers so a target's logs can be correlated."""

    worker_id: str
    task_id: str
    attempt: int

    def headers(self) -> dict[str, str]:
        return {
            "Yardstick-Worker-Id": self.worker_id,
            "Yardstick-Task-Id": self.task_id,
            "Yardstick-Attempt": str(self.attempt),
        }


@dataclass(frozen=True)
class TargetOutput:
    output: dict[str, Any]
    usage: TokenUsage | None = field(default=None)
    code_fingerprint: str | None = field(default=None)
    """Of a python target: the task worker's code (recorded with the result)."""


class Target(Protocol):
    """One kind of system under test.

    ``call`` returns the output or raises :class:`~services.evaluator.errors.TargetError`
    (terminal) or :class:`~services.evaluator.errors.TransientTargetError` (retry). It must
    respect ``task.timeout_s`` itself and raise ``TargetTimeout`` when it runs out.
    """

    async def call(self, task: EvalTask, ctx: CallContext) -> TargetOutput: ...
