"""One delivery of one task: call the target, score, publish the result, then ack (or nack/term).

The target is called through the worker's :class:`~services.evaluator.throttling.TargetGate`: a
rate-limited target (429, 503 + ``Retry-After``) is waited for and called again inside this delivery,
so a throttle is never a counted delivery nor an error; the result records how often it happened.

A failed call is an :class:`~yardstick.api.item_failure.ItemFailure`: source ``target`` for the
target's own errors (refusals, timeouts, transient errors given up on after the last delivery; a
python task's exception as the task worker reported it: its type, message and traceback),
``platform`` for an exception the worker's target code did not expect.

A task carrying a recorded output (a re-scored experiment, an output-cache hit) skips the target
call and is scored by the same evaluator code, under the same delivery rules. With a judge cache,
the judges of a task read and write its project's verdicts only."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from services.evaluator.deliveries import TaskDelivery
from services.evaluator.errors import (
    ResultPublishError,
    TargetError,
    TargetFailed,
    TargetTimeout,
    TransientTargetError,
)
from services.evaluator.result_publisher import ResultPublisher
from services.evaluator.retry_policy import backoff_delay, is_last_delivery
from services.evaluator.targets.base import CallContext, Target, TargetOutput
from services.evaluator.throttling import TargetGate, ThrottleTally
from shared.evaluators import EvaluatorRegistry, run_item_evaluators
from shared.evaluators.judge_cache import JudgeVerdictStore, judge_cache_in_use
from shared.llm.provider_gate import provider_gate_in_use
from shared.metrics import TARGET_ERRORS
from yardstick.api.agent_messages import TokenUsage
from yardstick.api.eval_messages import EvalResult, EvalTask
from yardstick.api.item_failure import ItemFailure

log = logging.getLogger(__name__)

Outcome = Literal["ok", "error", "retry"]
JudgeCacheFor = Callable[[str], JudgeVerdictStore]
"""The judge cache of a project (by id)."""


@dataclass(frozen=True)
class DeliveryPolicy:
    max_deliver: int
    backoff_base_s: float
    backoff_max_s: float
    lease_interval_s: float


@dataclass(frozen=True)
class _Retry:
    reason: TransientTargetError


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def _elapsed_ms(since: float) -> float:
    return round((time.perf_counter() - since) * 1000.0, 3)


class TaskProcessor:
    def __init__(
        self,
        *,
        worker_id: str,
        targets: Mapping[str, Target],
        publisher: ResultPublisher,
        policy: DeliveryPolicy,
        registry: EvaluatorRegistry,
        gate: TargetGate,
        judge_cache: JudgeCacheFor | None = None,
    ) -> None:
        self.worker_id = worker_id
        self._gate = gate
        self._judge_cache = judge_cache
        self.registry = registry
        self._targets = targets
        self._publisher = publisher
        self.policy = policy

    async def handle(
        self, delivery: TaskDelivery, fetched_at: float, scored: Callable[[], None] = lambda: None
    ) -> Outcome:
        """Settle ``delivery`` exactly once: ack after the result is durable, else retry with backoff.

        ``scored`` is called once the target has answered and the evaluators have run (or the attempt
        failed), before the result is published and the task acknowledged: the worker gives the
        experiment's credit back then, so the next task starts while this one's two round trips to
        NATS are still on their way (C bounds the calls and the scoring, not the bookkeeping)."""
        task, attempt = delivery.task, delivery.attempt
        fields = {"task_id": task.task_id, "attempt": attempt, "worker_id": self.worker_id}
        async with delivery.lease():
            outcome = await self._run(task, attempt)
            scored()
            if isinstance(outcome, _Retry):
                delay = backoff_delay(attempt, self.policy.backoff_base_s, self.policy.backoff_max_s)
                log.warning(
                    "transient failure, retrying in %.2fs: %s", delay, _describe(outcome.reason), extra=fields
                )
                await delivery.retry(delay)
                return "retry"
            result = outcome.model_copy(update={"total_ms": _elapsed_ms(fetched_at)})
            try:
                puback = await self._publisher.publish(result)
            except ResultPublishError as exc:
                delay = backoff_delay(attempt, self.policy.backoff_base_s, self.policy.backoff_max_s)
                log.error("%s; task nacked", exc, extra=fields)
                await delivery.retry(delay)
                return "retry"
        await delivery.ack()  # confirmed: once stop() returns, nothing is left pending
        if log.isEnabledFor(logging.INFO):
            log.info(
                "task done",
                extra={
                    **fields,
                    "status": result.status,
                    "duplicate": bool(puback.duplicate),
                    "error": result.error,
                },
            )
        return result.status

    async def _run(self, task: EvalTask, attempt: int) -> EvalResult | _Retry:
        if task.recorded is not None:  # re-scored or cached: the target already answered
            recorded = task.recorded
            return await self._scored(
                task, attempt, recorded.output, recorded.latency_ms, recorded.usage, ThrottleTally(), None
            )
        ctx = CallContext(worker_id=self.worker_id, task_id=task.task_id, attempt=attempt)
        tally = ThrottleTally()
        started = time.perf_counter()
        try:
            target = self._targets[task.target.kind]

            async def timed_call() -> TargetOutput:
                nonlocal started
                started = time.perf_counter()  # latency of the call that answered, not of the waits
                try:
                    async with asyncio.timeout(task.timeout_s):
                        return await target.call(task, ctx)
                except TimeoutError as exc:
                    raise TargetTimeout(
                        f"{task.target.kind} target took longer than {task.timeout_s:g}s"
                    ) from exc

            called = await self._gate.call(task, timed_call, tally)
        except TransientTargetError as exc:
            TARGET_ERRORS.labels(task.target.kind, "true").inc()
            if not is_last_delivery(attempt, self.policy.max_deliver):
                return _Retry(exc)
            failure = ItemFailure.of("target", exc, message=f"{exc} (gave up after {attempt} attempts)")
            return self._error(task, failure, attempt, _elapsed_ms(started), tally)
        except TargetError as exc:
            TARGET_ERRORS.labels(task.target.kind, "false").inc()
            failure = exc.failure if isinstance(exc, TargetFailed) else ItemFailure.of("target", exc)
            return self._error(task, failure, attempt, _elapsed_ms(started), tally)
        except Exception as exc:  # a bug in the worker's target code: record it, never loop on it
            log.exception("target raised unexpectedly", extra={"task_id": task.task_id})
            TARGET_ERRORS.labels(task.target.kind, "false").inc()
            return self._error(task, ItemFailure.of("platform", exc), attempt, _elapsed_ms(started), tally)
        return await self._scored(
            task, attempt, called.output, _elapsed_ms(started), called.usage, tally, called.code_fingerprint
        )

    async def _scored(
        self,
        task: EvalTask,
        attempt: int,
        output: dict[str, Any] | None,
        latency_ms: float | None,
        usage: TokenUsage | None,
        tally: ThrottleTally,
        code_fingerprint: str | None,
    ) -> EvalResult:
        """The ok result: ``output`` scored by the task's item-level evaluators, with what the target
        and the judges met at the gate (``tally``) and the fingerprint of the code that produced it."""
        cache_for = self._judge_cache if task.judge_cache else None  # the experiment may turn it off
        store = cache_for(task.project) if cache_for is not None else None
        with judge_cache_in_use(store), provider_gate_in_use(self._gate.for_judges(tally)):
            scores = await run_item_evaluators(
                self.registry,
                task.evaluators,
                input=task.input,
                output=output,
                expected_output=task.expected_output,
                metadata=task.metadata,
            )
        return EvalResult(
            experiment_id=task.experiment_id,
            item_id=task.item_id,
            trial=task.trial,
            status="ok",
            output=output,
            scores=scores,
            latency_ms=latency_ms,
            usage=usage,
            attempts=attempt,
            worker_id=self.worker_id,
            code_fingerprint=code_fingerprint,
            throttled=tally.throttled,
            target_concurrency=tally.concurrency,
        )

    def _error(
        self, task: EvalTask, failure: ItemFailure, attempt: int, latency_ms: float, tally: ThrottleTally
    ) -> EvalResult:
        return EvalResult(
            experiment_id=task.experiment_id,
            item_id=task.item_id,
            trial=task.trial,
            status="error",
            failure=failure,
            latency_ms=latency_ms,
            attempts=attempt,
            worker_id=self.worker_id,
            throttled=tally.throttled,
            target_concurrency=tally.concurrency,
        )
