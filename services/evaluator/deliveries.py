"""Deliveries of tasks: one message holds one task (:class:`SingleDelivery`) or several the
coordinator published together (:class:`BatchPart`, one per task of an :class:`~yardstick.api.
eval_messages.EvalTaskBatch`). The task processor settles a delivery the same way whichever it is.

Rules each kind keeps:

- **ACK only after the work is durable.** A single message is ACKed (through the worker's
  :class:`~shared.messaging.ack_pipeline.AckPipeline`) once its result was stored by JetStream; a
  batch message once *every* one of its tasks was settled that way.
- **Retry with backoff, hand back, at-least-once.** A single message is NAKed (with the backoff, or
  without delay to hand it back). A task of a batch cannot be NAKed alone: after the backoff it is
  published again as a single task message (``Nats-Msg-Id`` = task id, batch sequence and delivery),
  carrying its deliveries so far in :data:`PRIOR_ATTEMPTS_HEADER` so that ``max_deliver`` still counts
  every attempt; only then is its part of the batch settled. A crash at any point before the batch's
  ACK redelivers the whole batch: its tasks run again and their results, written idempotently, change
  nothing.
- **Leases.** A single task's lease is kept while it runs; a batch's is kept from the fetch until the
  batch is settled (its tasks run side by side, some parked for a credit).
- A task of a batch whose handling failed unexpectedly leaves the batch un-ACKed: it stops its
  lease and JetStream redelivers it after ``ack_wait``, as a single message would be.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager

import nats.errors
from nats.aio.msg import Msg

from services.evaluator.lease import Lease, keep_lease
from shared.messaging import AckPipeline
from yardstick.api.eval_messages import PRIOR_ATTEMPTS_HEADER, EvalTask

log = logging.getLogger(__name__)

Republish = Callable[[EvalTask, str, int], Awaitable[None]]
"""Publish one task as a single task message: (task, Nats-Msg-Id, prior attempts)."""


def prior_attempts(msg: Msg) -> int:
    """Deliveries a task had inside a batch before it was published again on its own."""
    value = (msg.headers or {}).get(PRIOR_ATTEMPTS_HEADER, "0")
    return int(value) if value.isdigit() else 0


class SingleDelivery:
    """One message, one task."""

    def __init__(self, msg: Msg, task: EvalTask, acks: AckPipeline, lease_interval_s: float) -> None:
        self.msg = msg
        self.task = task
        self.attempt = msg.metadata.num_delivered + prior_attempts(msg)
        self._acks = acks
        self._lease_interval_s = lease_interval_s

    def lease(self) -> AbstractAsyncContextManager[None]:
        return keep_lease(self.msg, self._lease_interval_s)

    async def ack(self) -> None:
        await self._acks.ack(self.msg)

    async def retry(self, delay_s: float) -> None:
        await self.msg.nak(delay=delay_s)

    async def give_back(self) -> None:
        await self.msg.nak()  # no delay: another worker runs it now


class TaskBatch:
    """One message holding several tasks: settled once all of them are."""

    def __init__(
        self, msg: Msg, size: int, acks: AckPipeline, lease_interval_s: float, republish: Republish
    ) -> None:
        self.msg = msg
        self._left = size
        self._acks = acks
        self._republish = republish
        self._failed = False
        self._lease = Lease(msg, lease_interval_s)
        self._lease.start()

    def parts(self, tasks: list[EvalTask]) -> list[BatchPart]:
        return [BatchPart(self, task) for task in tasks]

    @property
    def attempt(self) -> int:
        return int(self.msg.metadata.num_delivered)

    def split_id(self, task: EvalTask) -> str:
        """The message id of ``task`` published on its own from this delivery of the batch."""
        meta = self.msg.metadata
        return f"{task.task_id}@{meta.sequence.stream}.{meta.num_delivered}"

    async def settled(self) -> None:
        """One task is settled (its result durable, or it went out again on its own)."""
        self._left -= 1
        if self._left == 0:
            self._lease.stop()
            if not self._failed:
                await self._acks.ack(self.msg)

    def failed(self) -> None:
        """A task's handling raised: the batch is not ACKed; JetStream redelivers it after ack_wait."""
        self._failed = True
        self._left -= 1
        if self._left == 0:
            self._lease.stop()


class BatchPart:
    """One task of a :class:`TaskBatch`."""

    def __init__(self, batch: TaskBatch, task: EvalTask) -> None:
        self.batch = batch
        self.task = task
        self.attempt = batch.attempt

    def lease(self) -> AbstractAsyncContextManager[None]:
        return contextlib.nullcontext()  # the batch keeps its own lease

    async def ack(self) -> None:
        await self.batch.settled()

    async def retry(self, delay_s: float) -> None:
        """After ``delay_s`` (the batch's lease kept meanwhile), the task goes out on its own."""
        await asyncio.sleep(delay_s)  # the backoff itself, as a NAK's delay would be
        await self._split_off()

    async def give_back(self) -> None:
        await self._split_off()

    async def _split_off(self) -> None:
        try:
            await self.batch._republish(self.task, self.batch.split_id(self.task), self.attempt)
        except (nats.errors.Error, TimeoutError) as exc:
            log.warning("could not publish task %s again on its own: %s", self.task.task_id, exc)
            self.batch.failed()
            return
        await self.batch.settled()


TaskDelivery = SingleDelivery | BatchPart

__all__ = ["BatchPart", "Republish", "SingleDelivery", "TaskBatch", "TaskDelivery", "prior_attempts"]
