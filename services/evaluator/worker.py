"""The eval worker: bind to the shared durable pull consumer, fetch only into free slots, drain on stop.

The shared :class:`~shared.messaging.PullLoop` is used instead of a FastStream ``PullSub``: the
worker must ask for exactly the number of free slots, send in-progress acks from inside a task, and
stop fetching while in-flight tasks finish, which FastStream's managed batch loop does not expose.
A message holds one task or a batch of them (``services/evaluator/deliveries.py``: how a batch is
acked, retried and handed back task by task); it is decoded once, here, and terminated if it is no
task. Each task is settled by :class:`~services.evaluator.task_processor.TaskProcessor` (ack after
the result is published, retry with backoff, an error result once out of attempts).

Worker-held credits: a fetched task starts only when the :class:`~services.evaluator.credit_ledger.
CreditLedger` gives it a turn (this worker's credits for its experiment, from the grants the
:class:`~services.evaluator.credit_book.CreditBook` watches); until then it is parked here with its
lease kept, and it starts the moment a task of its experiment ends. While grants are known the loop
fetches no more than ``eval_park_limit`` tasks beyond those running.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import time
from collections.abc import Callable

import aiohttp
import nats.errors
from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg
from nats.js import JetStreamContext
from pydantic import BaseModel, Field
from sqlalchemy.ext.asyncio import AsyncEngine

from services.evaluator.catalog_responder import CatalogResponder
from services.evaluator.credit_book import CreditBook
from services.evaluator.credit_ledger import CreditLedger
from services.evaluator.deliveries import BatchPart, SingleDelivery, TaskBatch, TaskDelivery
from services.evaluator.result_publisher import ResultPublisher
from services.evaluator.retry_policy import effective_max_deliver
from services.evaluator.settings import WorkerSettings
from services.evaluator.targets import build_targets
from services.evaluator.targets.guarded_session import new_session
from services.evaluator.task_processor import DeliveryPolicy, JudgeCacheFor, TaskProcessor
from services.evaluator.throttling import TargetGate, ThrottleBoard
from shared.contracts.capacity import WorkerCapacity
from shared.contracts.credits import CreditGrant
from shared.db import make_engine, make_session_factory
from shared.db.judge_verdicts import ProjectVerdicts, configured_max_age
from shared.evaluators.loading import process_registry
from shared.evaluators.registry import EvaluatorRegistry
from shared.messaging import (
    AckPipeline,
    ConsumerNotDeclared,
    PullLoop,
    bind_durable,
    decode_or_terminate,
    publish_once,
)
from shared.messaging.streams import EVAL_TASK_ACK_WAIT_S
from shared.metrics import TASKS_IN_FLIGHT, TASKS_RETURNED, TASKS_SETTLED
from yardstick.api.eval_messages import (
    PRIOR_ATTEMPTS_HEADER,
    TASK_BATCH_HEADER,
    TASKS_PER_MESSAGE,
    EvalTask,
    EvalTaskBatch,
)
from yardstick.api.nats_connection import ConnectionHealth, NatsUnavailable, connect_nats
from yardstick.api.nats_interest import subscriptions_registered
from yardstick.api.topology import EVAL_WORKERS_CONSUMER

log = logging.getLogger(__name__)


class WorkerStartError(RuntimeError):
    """The worker cannot start: NATS unreachable or the durable consumer not declared."""


class WorkerStatus(BaseModel):
    worker_id: str
    connected: bool = Field(description="NATS connection is up")
    running: bool = Field(description="Fetch loop is active (False while draining or stopped)")
    in_flight: int = Field(description="Tasks being processed now")
    concurrency: int
    outcomes: dict[str, int] = Field(description="Deliveries settled so far, by outcome")
    nats: ConnectionHealth = Field(description="The NATS connection: state, disconnects, failed attempts")


class EvalWorker:
    def __init__(
        self,
        settings: WorkerSettings,
        on_fatal: Callable[[BaseException], None] | None = None,
        *,
        registry: EvaluatorRegistry | None = None,
    ) -> None:
        self.settings = settings
        self.registry = registry or process_registry()
        self.on_fatal = on_fatal
        self._nc: NatsClient | None = None
        self._sub: JetStreamContext.PullSubscription | None = None
        self._http: aiohttp.ClientSession | None = None
        self._engine: AsyncEngine | None = None
        self._processor: TaskProcessor | None = None
        self._board: ThrottleBoard | None = None
        self._loop_task: asyncio.Task[None] | None = None
        self._in_flight: set[asyncio.Task[None]] = set()
        self._book: CreditBook | None = None
        self._ledger = CreditLedger(
            settings.worker_id, settings.eval_concurrency, self._grant_of, on_change=self._wake_pull
        )
        self._lease_interval_s = EVAL_TASK_ACK_WAIT_S / 3.0
        self._acks = AckPipeline()
        self._pull = PullLoop(
            "eval worker",
            batch=settings.eval_concurrency,
            wait_s=settings.eval_fetch_timeout_s,
            room=self._room,
            on_batch=self._spawn_all,
        )
        self._stopping = False
        self._outcomes: collections.Counter[str] = collections.Counter()
        self.nats_health = ConnectionHealth()

    @property
    def in_flight(self) -> int:
        return len(self._in_flight)

    @property
    def ledger(self) -> CreditLedger:
        """Running and parked tasks, by experiment."""
        return self._ledger

    def _grant_of(self, experiment_id: str) -> CreditGrant | None:
        return None if self._book is None else self._book.grant_of(experiment_id)

    def _wake_pull(self) -> None:
        self._pull.wake()

    def _room(self) -> int:
        """Messages to fetch now, for room for tasks: free slots, and while grants are known no more
        than the park limit beyond what runs (a task beyond this worker's credits waits here, holding
        a stock unit). A message may hold up to ``TASKS_PER_MESSAGE`` tasks: asking for one message
        per free slot would let one worker take a whole wave and park what the other could run."""
        free = self.settings.eval_concurrency - len(self._in_flight) + self._ledger.parked
        if self._book is None or self._book.empty:
            tasks = free - self._ledger.parked
        else:
            tasks = min(free, self.settings.eval_park_limit - self._ledger.parked)
        return 0 if tasks <= 0 else max(1, tasks // TASKS_PER_MESSAGE)

    @property
    def jetstream(self) -> JetStreamContext | None:
        """The worker's JetStream context once started (for the consumer-lag metrics)."""
        return None if self._nc is None else self._nc.jetstream()

    @property
    def engine(self) -> AsyncEngine | None:
        """The judge cache's database, when the worker has one."""
        return self._engine

    def status(self) -> WorkerStatus:
        return WorkerStatus(
            worker_id=self.settings.worker_id,
            connected=bool(self._nc and self._nc.is_connected),
            nats=self.nats_health,
            running=self._loop_task is not None and not self._loop_task.done() and not self._stopping,
            in_flight=self.in_flight,
            concurrency=self.settings.eval_concurrency,
            outcomes=dict(self._outcomes),
        )

    async def start(self) -> None:
        topology = self.settings.topology
        try:
            self._nc = await connect_nats(
                self.settings.nats_url,
                name=f"eval-worker {self.settings.worker_id}",
                deadline_s=self.settings.nats_connect_deadline_s,
                health=self.nats_health,
                reconnect_wait_s=self.settings.nats_reconnect_wait_s,
            )
        except NatsUnavailable as exc:
            raise WorkerStartError(str(exc)) from exc
        js = self._nc.jetstream()
        try:
            self._sub, info = await bind_durable(js, topology.eval_tasks_stream, EVAL_WORKERS_CONSUMER)
        except ConsumerNotDeclared as exc:
            await self._nc.close()
            raise WorkerStartError(str(exc)) from exc
        ack_wait = info.config.ack_wait or EVAL_TASK_ACK_WAIT_S
        self._lease_interval_s = ack_wait / 3.0
        policy = DeliveryPolicy(
            max_deliver=effective_max_deliver(self.settings.eval_max_deliver, info.config.max_deliver),
            backoff_base_s=self.settings.eval_backoff_base_s,
            backoff_max_s=self.settings.eval_backoff_max_s,
            lease_interval_s=ack_wait / 3.0,
        )
        self._board = ThrottleBoard(js, topology.target_throttle_bucket, self.settings.worker_id)
        try:
            await self._board.start()
        except nats.errors.Error as exc:  # BucketNotFoundError included
            await self._nc.close()
            raise WorkerStartError(
                f"the KV bucket {topology.target_throttle_bucket} is not declared ({exc!r}): "
                "run `yardstick stack up` (or shared.messaging.streams.declare) first"
            ) from exc
        await self._start_credit_book(js)
        self._http = new_session(self.settings.eval_concurrency, self.settings.outbound_policy)
        self._processor = TaskProcessor(
            worker_id=self.settings.worker_id,
            targets=build_targets(self._nc, self._http, topology),
            publisher=ResultPublisher(
                js, topology.eval_result, topology.eval_results_stream, self.settings.eval_publish_budget_s
            ),
            policy=policy,
            registry=self.registry,
            gate=TargetGate(
                self._board, self.settings.eval_concurrency, self.settings.eval_throttle_max_wait_s
            ),
            judge_cache=self._judge_cache(),
        )
        self._loop_task = asyncio.create_task(self._fetch_loop(), name="eval-fetch-loop")
        await self._nc.subscribe(topology.eval_capacity, cb=self._answer_capacity)  # core NATS, no ack
        catalog = CatalogResponder(self.settings.worker_id, self.registry)
        await self._nc.subscribe(topology.eval_evaluators, cb=catalog.respond)  # core NATS, no ack
        await subscriptions_registered(self._nc)  # probes sent after "ready" find this worker
        log.info(
            "eval worker ready",
            extra={
                "worker_id": self.settings.worker_id,
                "namespace": topology.namespace,
                "concurrency": self.settings.eval_concurrency,
                "max_deliver": policy.max_deliver,
                "ack_wait_s": ack_wait,
            },
        )

    async def _start_credit_book(self, js: JetStreamContext) -> None:
        """Watch the grants; without the bucket (a stack declared before credits) run without them."""
        book = CreditBook(js, self.settings.topology.eval_credits_bucket, on_change=self._regranted)
        try:
            await book.start()
        except nats.errors.Error as exc:  # BucketNotFoundError included
            log.warning("no credits bucket (%r): every fetched task runs at once, as without credits", exc)
            return
        self._book = book

    def _regranted(self, experiment_id: str) -> None:
        self._ledger.reconsider()
        self._pull.wake()

    def _judge_cache(self) -> JudgeCacheFor | None:
        """One project's judge cache per task, when the worker has a database (else none)."""
        if not self.settings.database_url:
            log.info("no DATABASE_URL: the judge cache is off, every judge asks its model")
            return None
        self._engine = make_engine(self.settings.database_url, pool_size=2)
        sessions = make_session_factory(self._engine)
        max_age = configured_max_age()  # read once: settings from the environment cost per task
        return lambda project: ProjectVerdicts(sessions, project, max_age)

    async def _answer_capacity(self, msg: Msg) -> None:
        """Tell the coordinator how many tasks this worker runs at once (it warns when an experiment
        asks for more than the fleet holds)."""
        if msg.reply:
            answer = WorkerCapacity(
                worker_id=self.settings.worker_id,
                concurrency=self.settings.eval_concurrency,
                in_flight=self.in_flight,
                draining=self._stopping,
            )
            await msg.respond(answer.model_dump_json().encode())

    async def _fetch_loop(self) -> None:
        assert self._sub is not None
        try:
            await self._pull.run(self._sub)
        except Exception as exc:
            log.exception("eval worker fetch loop died")
            if self.on_fatal is not None:
                self.on_fatal(exc)
            raise

    async def _spawn_all(self, msgs: list[Msg]) -> None:
        """One task per task of the messages, each settling its own delivery (a malformed message is
        terminated here)."""
        fetched_at = time.perf_counter()
        for msg in msgs:
            for delivery in await self._deliveries(msg):
                task = asyncio.create_task(self._settle(delivery, fetched_at))
                self._in_flight.add(task)
                TASKS_IN_FLIGHT.inc()
                task.add_done_callback(self._finished)

    async def _deliveries(self, msg: Msg) -> list[TaskDelivery]:
        """The tasks ``msg`` holds: one task, or the coordinator's batch of them (decoded once)."""
        if msg.headers and TASK_BATCH_HEADER in msg.headers:
            batch = await decode_or_terminate(msg, EvalTaskBatch)
            if batch is None or not batch.root:
                self._terminated()
                return []
            held = TaskBatch(msg, len(batch.root), self._acks, self._lease_interval_s, self._republish)
            return list(held.parts(batch.root))
        task = await decode_or_terminate(msg, EvalTask)
        if task is None:
            self._terminated()
            return []
        return [SingleDelivery(msg, task, self._acks, self._lease_interval_s)]

    def _terminated(self) -> None:
        self._outcomes["terminated"] += 1
        TASKS_SETTLED.labels("terminated").inc()

    async def _republish(self, task: EvalTask, msg_id: str, prior_attempts: int) -> None:
        """A task of a batch, out again on its own (to retry after its backoff, or handed back)."""
        assert self._nc is not None
        topology = self.settings.topology
        await publish_once(
            self._nc.jetstream(),
            topology.eval_task,
            task.model_dump_json().encode(),
            msg_id=msg_id,
            stream=topology.eval_tasks_stream,
            budget_s=self.settings.eval_publish_budget_s,
            headers={PRIOR_ATTEMPTS_HEADER: str(prior_attempts)},
        )

    def _finished(self, task: asyncio.Task[None]) -> None:
        self._in_flight.discard(task)
        TASKS_IN_FLIGHT.dec()
        self._pull.wake()

    async def _settle(self, delivery: TaskDelivery, fetched_at: float) -> None:
        assert self._processor is not None
        experiment_id = delivery.task.experiment_id
        released = False

        def release() -> None:  # the credit goes back once, when scored (or when handling ended)
            nonlocal released
            if not released:
                released = True
                self._ledger.finished(experiment_id)

        outcome: str
        try:
            if not await self._wait_turn(delivery, experiment_id):
                outcome = "returned"
            else:
                try:
                    outcome = await self._processor.handle(delivery, fetched_at, release)
                finally:
                    release()
        except Exception:
            outcome = "failed_to_settle"
            if isinstance(delivery, BatchPart):
                delivery.batch.failed()
            log.exception("could not settle a task; JetStream redelivers it after ack_wait")
        self._outcomes[outcome] += 1
        TASKS_SETTLED.labels(outcome).inc()

    async def _wait_turn(self, delivery: TaskDelivery, experiment_id: str) -> bool:
        """True once the task may run (lease kept while parked); False after handing it back."""
        turn = self._ledger.turn(experiment_id)
        if not turn.done():
            async with delivery.lease():
                await turn
        if turn.result():
            return True
        await delivery.give_back()  # another worker with credits runs it now
        TASKS_RETURNED.inc()
        return False

    async def stop(self) -> None:
        """Stop fetching, hand back buffered messages, let in-flight tasks finish, then disconnect.
        Idempotent."""
        if self._stopping:
            return
        self._stopping = True
        self._pull.stop()
        self._ledger.drain()
        log.info(
            "eval worker draining", extra={"worker_id": self.settings.worker_id, "in_flight": self.in_flight}
        )
        if self._loop_task is not None:  # it gives back what it fetched and what a late pull left
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await self._loop_task
        if self._in_flight:
            _, pending = await asyncio.wait(set(self._in_flight), timeout=self.settings.eval_drain_timeout_s)
            for task in pending:  # not settled: JetStream redelivers them after ack_wait
                task.cancel()
            if pending:
                log.warning("drain timeout: %d tasks cancelled", len(pending))
        if self._http is not None:
            await self._http.close()
        if self._board is not None:
            await self._board.stop()
        if self._book is not None:
            await self._book.stop()
        if self._engine is not None:
            await self._engine.dispose()
        if self._sub is not None:
            with contextlib.suppress(nats.errors.Error):
                await self._sub.unsubscribe()
        if self._nc is not None and not self._nc.is_closed:
            await self._nc.close()  # flushes pending acks; drain() would wait on the pull inbox
        log.info(
            "eval worker stopped",
            extra={"worker_id": self.settings.worker_id, "outcomes": dict(self._outcomes)},
        )
