"""Fan-out: keep an experiment's stock of tasks published (its concurrency C, plus a read-ahead once
the workers hold credits for it), refilling the stock as soon as a result arrives.

Two loops share the in-memory ledger (``slots``):
- the **publisher** publishes read-ahead rows into free slots; it touches no database, so a slot
  freed by an arriving result (``release``, called by the collector *before* it stores the result)
  is refilled within one NATS round trip, while the result is still being written;
- the **bookkeeper** marks published rows ``dispatched`` (batched), reads pending rows ahead, and on
  every tick (``dispatch_interval_s``) or poke re-reads the running experiments, reconciles the
  ledger with Postgres, republishes lost tasks and hands completed experiments to the finalizer;
- with worker-held credits (``credits``), a third loop splits each running experiment's C over the
  live workers on every tick and whenever the running set changes (``dispatch/credit_grants.py``):
  the workers start the next task the moment one ends, from the tasks published beyond C, without
  waiting for this round trip; the total running stays C.

Postgres stays the truth (item status pending -> dispatched -> ok|error), so a restarted coordinator
rebuilds the ledger and resumes. A task is published *before* its row is marked dispatched: a crash
in between re-publishes it (a lone task with the same ``Nats-Msg-Id``, dropped as a duplicate inside
the window; in a batch grouped differently, run again), harmless because results are written
idempotently. Tasks freed together go out up to ``TASKS_PER_MESSAGE`` to a message
(:class:`~yardstick.api.eval_messages.EvalTaskBatch`, split evenly so that the workers get similar
shares). A cancelled experiment is
``forget``-ed at once: nothing more is published for it; so is one whose budget the scan finds
spent (``dispatch/budget.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import Callable, Iterable
from datetime import timedelta
from typing import Any, TypeVar

from nats.js import JetStreamContext
from nats.js.errors import BucketNotFoundError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.coordinator.experiments.dispatch.budget import stop_if_spent
from services.coordinator.experiments.dispatch.credit_grants import CreditGrants
from services.coordinator.experiments.dispatch.slots import ExperimentSlots
from services.coordinator.experiments.store import dispatch_rows
from services.coordinator.settings import CoordinatorSettings
from shared.db.base import utcnow
from shared.db.models import Experiment, ExperimentItem
from shared.messaging import publish_once
from shared.metrics import TASKS_PUBLISHED
from yardstick.api.eval_messages import (
    TASK_BATCH_HEADER,
    TASKS_PER_MESSAGE,
    EvalResult,
    EvalTask,
    batch_message_id,
    task_key,
)
from yardstick.api.topology import Topology

log = logging.getLogger(__name__)
T = TypeVar("T")
_NONE: Any = object()


def task_for(experiment: Experiment, row: ExperimentItem) -> EvalTask:
    config = experiment.config
    return EvalTask(
        experiment_id=experiment.id,
        project=experiment.project_id,
        item_id=row.item_id,
        trial=row.trial,
        input=row.input,
        expected_output=row.expected_output,
        metadata=row.item_metadata,
        target=config.target,
        evaluators=config.evaluators,
        timeout_s=config.timeout_s,
        recorded=row.recorded,
        concurrency=config.concurrency,
        judge_cache=config.judge_cache,
    )


def split_evenly(items: list[T], at_most: int) -> list[list[T]]:
    """``items`` in consecutive groups of at most ``at_most``, as even in size as can be (so that the
    workers fetching them get similar shares): 20 at most 16 -> 10 + 10."""
    count = -(-len(items) // at_most)
    size, extra = divmod(len(items), count) if count else (0, 0)
    groups, start = [], 0
    for i in range(count):
        end = start + size + (1 if i < extra else 0)
        groups.append(items[start:end])
        start = end
    return groups


def in_turn(batches: list[list[T]]) -> list[T]:
    """The batches' elements one of each in turn: [[a1, a2, a3], [b1]] -> [a1, b1, a2, a3]."""
    turns = itertools.zip_longest(*batches, fillvalue=_NONE)
    return [x for turn in turns for x in turn if x is not _NONE]


class Dispatcher:
    """One publisher and one bookkeeper for all running experiments."""

    def __init__(
        self,
        js: JetStreamContext,
        topology: Topology,
        sessions: async_sessionmaker[AsyncSession],
        settings: CoordinatorSettings,
        on_complete: Callable[[str], None],
        credits: CreditGrants | None = None,
    ) -> None:
        self.js = js
        self.credits = credits
        self._credits_due = asyncio.Event()
        self.topology = topology
        self.sessions = sessions
        self.settings = settings
        self.on_complete = on_complete
        self.wake = asyncio.Event()
        self._freed = asyncio.Event()
        self._stopping = False
        self._rescan = True
        self._checked_at = float("-inf")
        self._slots: dict[str, ExperimentSlots] = {}
        self._forgotten: set[str] = set()
        self._budgeted: set[str] = set()
        self._to_mark: list[int] = []
        self._publishing: set[int] = set()
        """Row ids taken for publishing whose publish has not returned yet (see ``_unmarked``)."""

    # ---- called by the API and the collector ----------------------------------------------------

    def poke(self) -> None:
        """Something changed in Postgres (an experiment started): re-read the running ones now."""
        self._rescan = True
        self.wake.set()
        self._credits_due.set()

    def release(self, results: Iterable[EvalResult]) -> None:
        """Results arrived (not stored yet): their slots are free, refill them now."""
        for result in results:
            slots = self._slots.get(result.experiment_id)
            if slots is not None and slots.arrived((result.item_id, result.trial)):
                self._freed.set()
                if slots.hungry:
                    self.wake.set()  # read ahead before the queue runs dry

    def progressed(self, experiment_ids: Iterable[str]) -> None:
        """Results were stored: an experiment with a budget is checked again now, not at the tick."""
        if self._budgeted.intersection(experiment_ids):
            self.poke()

    def forget(self, experiment_id: str) -> None:
        """Publish nothing more for this experiment (cancelled)."""
        self._forgotten.add(experiment_id)
        self._slots.pop(experiment_id, None)
        self._credits_due.set()

    def stock_of(self, experiment_id: str) -> int | None:
        """How many tasks of a running experiment may be published and unfinished now."""
        slots = self._slots.get(experiment_id)
        return None if slots is None else slots.stock

    def stop(self) -> None:
        self._stopping = True
        self.wake.set()
        self._freed.set()
        self._credits_due.set()

    # ---- the two loops ----------------------------------------------------------------------------

    async def run(self) -> None:
        async with asyncio.TaskGroup() as group:
            group.create_task(self._publisher(), name="dispatcher-publish")
            group.create_task(self._bookkeeper(), name="dispatcher-bookkeep")
            if self.credits is not None:
                group.create_task(self._credit_keeper(self.credits), name="dispatcher-credits")

    async def _publisher(self) -> None:
        while not self._stopping:
            self._freed.clear()
            try:
                await self.publish_free()
            except Exception:
                log.exception("publishing tasks failed; retrying on the next wake-up")
            await self._freed.wait()

    async def _bookkeeper(self) -> None:
        loop = asyncio.get_running_loop()
        while not self._stopping:
            self.wake.clear()
            began = loop.time()
            try:
                await self.bookkeep()
            except Exception:
                log.exception("dispatch bookkeeping failed; retrying on the next tick")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), self.settings.dispatch_interval_s)
            # busy: one round per write_gap_s at most, marking what was published meanwhile together
            gap = began + self.settings.write_gap_s - loop.time()
            if gap > 0 and not self._stopping:
                await asyncio.sleep(gap)

    async def _credit_keeper(self, credits: CreditGrants) -> None:
        missing_told = False
        while not self._stopping:
            self._credits_due.clear()
            try:
                await self.sync_credits(credits)
                missing_told = False
            except BucketNotFoundError:  # streams not declared (yet): say it once, not every tick
                if not missing_told:
                    log.warning(
                        "the credits bucket %s does not exist: workers run tasks as they come until "
                        "the streams are declared (`yardstick stack up` or the bootstrap job does it)",
                        self.topology.eval_credits_bucket,
                    )
                    missing_told = True
            except Exception:
                log.exception("granting credits failed; retrying on the next tick")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._credits_due.wait(), self.settings.dispatch_interval_s)

    async def sync_credits(self, credits: CreditGrants) -> None:
        """Grant every running experiment's C to the live workers, then size each stock to match."""
        await credits.sync({e: slots.concurrency for e, slots in self._slots.items()})
        for experiment_id, slots in list(self._slots.items()):
            slots.read_ahead_stock = credits.read_ahead_for(experiment_id, slots.concurrency)
            if slots.hungry:
                self.wake.set()
        self._freed.set()

    async def publish_free(self) -> int:
        """Publish read-ahead rows into every free slot; returns how many were published. The
        experiments' rows alternate in the queue (one of each in turn), so experiments that run at
        the same time, such as an interleaved run and its baseline, reach the workers side by side
        rather than one batch after the other."""
        taken = in_turn([[(slots, row) for row in slots.take()] for slots in list(self._slots.values())])
        if not taken:
            return 0
        publishing = {row.id for _, row in taken}
        self._publishing |= publishing
        groups = split_evenly(taken, TASKS_PER_MESSAGE)
        try:
            outcomes = await asyncio.gather(
                *(self._publish_group([task_for(slots.experiment, row) for slots, row in g]) for g in groups),
                return_exceptions=True,
            )
        finally:
            self._publishing -= publishing
        failed: dict[int, list[ExperimentItem]] = {}
        for group, outcome in zip(groups, outcomes, strict=True):
            for slots, row in group:
                if isinstance(outcome, BaseException):
                    failed.setdefault(id(slots), []).append(row)
                else:
                    self._to_mark.append(row.id)
        for slots in {id(s): s for s, _ in taken}.values():
            if id(slots) in failed:
                slots.give_back(failed[id(slots)])
        if failed:
            log.warning("%d task publishes failed; they are retried", sum(map(len, failed.values())))
        self.wake.set()  # mark them dispatched
        return len(taken) - sum(map(len, failed.values()))

    async def _publish_group(self, tasks: list[EvalTask]) -> None:
        """One task as an :class:`EvalTask` (``Nats-Msg-Id`` = its task id), several as one
        :class:`EvalTaskBatch` message (the id is a digest of their task ids)."""
        if len(tasks) == 1:
            await self._publish(tasks[0])
            return
        body = b"[" + b",".join(task.model_dump_json().encode() for task in tasks) + b"]"
        ack = await publish_once(
            self.js,
            self.topology.eval_task,
            body,
            msg_id=batch_message_id("tasks", [task.task_id for task in tasks]),
            stream=self.topology.eval_tasks_stream,
            headers={TASK_BATCH_HEADER: str(len(tasks))},
        )
        TASKS_PUBLISHED.labels("duplicate" if ack.duplicate else "new").inc(len(tasks))

    async def _publish(self, task: EvalTask) -> None:
        ack = await publish_once(
            self.js,
            self.topology.eval_task,
            task.model_dump_json().encode(),
            msg_id=task.task_id,
            stream=self.topology.eval_tasks_stream,
        )
        TASKS_PUBLISHED.labels("duplicate" if ack.duplicate else "new").inc()

    # ---- bookkeeping ------------------------------------------------------------------------------

    async def bookkeep(self) -> None:
        """One round, in one session: on a tick or poke the scan, then mark what was published and
        read ahead (each session checkout costs a pre-ping round trip)."""
        now = asyncio.get_running_loop().time()
        tick = now - self._checked_at >= self.settings.dispatch_interval_s
        scan = tick or self._rescan
        if not scan and not self._to_mark and not any(s.hungry for s in self._slots.values()):
            return
        ids, self._to_mark = self._to_mark, []
        try:
            async with self.sessions() as session:
                if ids:  # before the scan: a budget stop must see what was published as dispatched
                    await dispatch_rows.mark_dispatched(session, ids)
                if scan:
                    self._rescan = False
                    await self._scan(session, tick)
                    if tick:
                        self._checked_at = now
                await self._read_ahead(session)
                await session.commit()
        except Exception:
            self._to_mark = ids + self._to_mark  # marked on the next round
            raise

    async def _scan(self, session: AsyncSession, tick: bool) -> None:
        """Adopt new running experiments, drop finished/cancelled ones; on a tick also reconcile,
        republish lost tasks and rebuild ledgers that went idle."""
        running = await dispatch_rows.running_experiments(session)
        live = {e.id for e in running}
        for experiment_id in [e for e in self._slots if e not in live]:
            del self._slots[experiment_id]
            self._credits_due.set()
        self._budgeted = {
            e.id for e in running if e.config.max_cost is not None and e.budget_exhausted_at is None
        }
        for experiment in running:
            if experiment.id in self._budgeted and await stop_if_spent(
                session, experiment, self._unmarked(experiment.id)
            ):
                self.forget(experiment.id)
                await session.commit()
                await session.refresh(experiment)
            elif tick and experiment.budget_exhausted_at is not None and experiment.done < experiment.total:
                await self._stop_given_back(session, experiment)
            if experiment.done >= experiment.total:
                if self._slots.pop(experiment.id, None) is not None:
                    self._credits_due.set()
                self.on_complete(experiment.id)
                continue
            if experiment.id in self._forgotten:
                continue
            slots = self._slots.get(experiment.id)
            if slots is not None and tick and slots.idle and slots.exhausted:
                slots = None  # nothing in flight yet items left: start over from Postgres
            if slots is None:
                slots = ExperimentSlots(experiment)
                if self.credits is not None:
                    slots.read_ahead_stock = self.credits.read_ahead_for(experiment.id, slots.concurrency)
                self._credits_due.set()
                slots.load_in_flight(await dispatch_rows.dispatched_rows(session, experiment.id))
                self._slots[experiment.id] = slots
            else:
                slots.experiment = experiment
                if tick and slots.in_flight:
                    slots.settled(await dispatch_rows.terminal_ids(session, list(slots.in_flight.values())))
            if tick:
                await self._republish_stale(session, experiment)
        self._freed.set()

    def _unmarked(self, experiment_id: str) -> set[int]:
        """Rows of an experiment that are (or are being) published but may still read ``pending``."""
        slots = self._slots.get(experiment_id)
        in_flight = set() if slots is None else set(slots.in_flight.values())
        return in_flight | self._publishing | set(self._to_mark)

    async def _stop_given_back(self, session: AsyncSession, experiment: Experiment) -> None:
        """After a budget stop, a row whose publish failed went back to ``pending`` in a ledger that
        was dropped: stop it too, or the run would wait for it forever."""
        reason = experiment.error or "not run: budget exhausted"
        if await dispatch_rows.stop_for_budget(session, experiment.id, reason, self._unmarked(experiment.id)):
            await session.commit()
            await session.refresh(experiment)

    async def _read_ahead(self, session: AsyncSession) -> None:
        for slots in [slots for slots in self._slots.values() if slots.hungry]:
            want = slots.want_ahead
            rows = await dispatch_rows.pending_after(session, slots.experiment.id, slots.cursor, want)
            if self._slots.get(slots.experiment.id) is slots:  # not forgotten meanwhile
                slots.read_ahead(list(rows), want)
                self._freed.set()

    async def _republish_stale(self, session: AsyncSession, experiment: Experiment) -> None:
        """A task with no result long after dispatch was lost (e.g. dropped after max deliveries while
        its worker died): publish it again. Results are idempotent, so a late original is harmless."""
        cutoff = utcnow() - timedelta(seconds=self.settings.stale_dispatch_s)
        stale = await dispatch_rows.stale_rows(session, experiment.id, cutoff)
        for row in stale:
            log.warning(
                "re-publishing stale task", extra={"task_id": task_key(experiment.id, row.item_id, row.trial)}
            )
            await self._publish(task_for(experiment, row))
            row.dispatched_at = utcnow()
        if stale:
            await session.commit()
