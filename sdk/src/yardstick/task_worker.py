"""A task worker: serves ``@yardstick.task`` functions as python targets, one process of many.

Design: the eval workers keep every delivery rule, the task worker only answers requests.
An experiment on the python target ``my-app`` is dispatched like any other, as eval tasks on the
``eval.task`` JetStream work queue; the eval worker that takes one calls ``<ns>.task.invoke.my-app``
(NATS request/reply, queue group ``task-workers``: exactly one running replica gets each request)
and this process runs the function and replies with its output. So:

- leases, retries, exactly-once and drain stay where they are already enforced and tested (the eval
  worker's ``TaskProcessor``): it holds the JetStream lease while the function runs (in-progress
  acks), a replica that dies mid-call leaves the request unanswered, the eval worker's timeout makes
  that transient (nack with backoff), and the redelivered task reaches a surviving replica; the
  result is published once under ``Nats-Msg-Id`` and stored with an upsert. The function may run
  twice for such an item (at-least-once calls, as for every target); its result is recorded once.
- the dispatcher, the collector and the stream declarations do not know task workers exist; a task
  worker needs no durable consumer to be declared, so ``yardstick worker`` starts in any namespace.
- scaling is starting more processes: NATS spreads requests over the queue group.

The alternative, task workers pulling eval tasks from a per-target JetStream consumer themselves,
would need a second copy of the lease/retry/publish loop, per-name streams or consumers to declare
and clean up, and routing in the dispatcher; it was not worth it.

Stale code: the worker fingerprints its task code at start (:mod:`yardstick.code_fingerprint`), sends
the fingerprint with every reply (the experiment records it with each result) and, before running
each call, checks whether those source files changed on disk. Once they have, it refuses every call
(``refused``: the eval worker retries it, transient, and a fresh worker serves it; nothing is run with
the old code, nothing is lost), withdraws from the queue group (new calls and liveness probes go to
the other replicas) and says so once, on stderr and in its log. ``yardstick worker --reload`` restarts
it instead.

Subscriptions are core NATS: there is nothing to ack here (the eval task's JetStream delivery is
the durable one). ``stop()`` drains: it stops answering the liveness probe, removes interest in new
requests (NATS routes them to other replicas), lets calls already running finish and reply (up to
``TASK_DRAIN_TIMEOUT_S``), then disconnects.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import nats.errors
from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from pydantic import ValidationError
from pydantic_core import PydanticSerializationError, to_jsonable_python

from yardstick.api.item_failure import ItemFailure
from yardstick.api.nats_connection import ConnectionHealth, NatsUnavailable, connect_nats
from yardstick.api.nats_interest import subscriptions_registered
from yardstick.api.task_messages import TaskInvokeReply, TaskInvokeRequest, TaskWorkerInfo
from yardstick.api.topology import TASK_QUEUE
from yardstick.code_fingerprint import SourceWatch, short
from yardstick.errors import YardstickError
from yardstick.tasks import TaskFunction
from yardstick.worker_settings import TaskWorkerSettings

log = logging.getLogger(__name__)


class TaskWorkerStartError(YardstickError):
    """The task worker cannot start: NATS unreachable, or two functions under one name."""


def as_output(value: Any) -> dict[str, Any]:
    """The function's return value as a JSON object: a dict as is, anything else as
    ``{"output": value}``; ``TypeError`` when it is not JSON-serialisable."""
    try:
        plain = to_jsonable_python(value)
    except PydanticSerializationError as exc:
        raise TypeError(f"the function returned a {type(value).__name__}, which is not JSON: {exc}") from exc
    if isinstance(plain, dict):  # keys are str after to_jsonable_python
        return plain
    return {"output": plain}


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


class TaskWorker:
    """Serves ``tasks`` on the stack's NATS until :meth:`stop`."""

    def __init__(self, tasks: Sequence[TaskFunction], settings: TaskWorkerSettings | None = None) -> None:
        names = [t.name for t in tasks]
        if not names:
            raise TaskWorkerStartError("no task to serve: decorate a function with @yardstick.task('NAME')")
        if len(set(names)) != len(names):
            raise TaskWorkerStartError(f"two functions are served under one name: {sorted(names)}")
        self.tasks = {t.name: t for t in tasks}
        self.settings = settings or TaskWorkerSettings.discover()
        self.nats_health = ConnectionHealth()
        self._nc: NatsClient | None = None
        self._invoke_subs: list[Subscription] = []
        self._probe_subs: list[Subscription] = []
        self._slots = asyncio.Semaphore(self.settings.task_concurrency)
        self._threads = ThreadPoolExecutor(
            max_workers=self.settings.task_concurrency, thread_name_prefix="yardstick-task"
        )
        self._in_flight: set[asyncio.Task[None]] = set()
        self._stopping = False
        self.served = 0
        self.refused = 0
        self.code = SourceWatch.of_tasks(tasks)
        self.stale_files: list[str] = []
        """Set once the task code changed on disk: the calls are refused from then on."""
        self.code_stale = asyncio.Event()
        """Set once the worker noticed that change and left the queue group."""

    @property
    def code_fingerprint(self) -> str | None:
        """SHA-256 of the task source files as they were at start (None: no source file)."""
        return self.code.fingerprint

    @property
    def in_flight(self) -> int:
        return len(self._in_flight)

    async def start(self) -> None:
        topology = self.settings.topology
        try:
            self._nc = await connect_nats(
                self.settings.nats_url,
                name=f"task-worker {self.settings.worker_id}",
                deadline_s=self.settings.nats_connect_deadline_s,
                health=self.nats_health,
                reconnect_wait_s=self.settings.nats_reconnect_wait_s,
            )
        except NatsUnavailable as exc:
            raise TaskWorkerStartError(str(exc)) from exc
        for name, fn in self.tasks.items():

            async def on_invoke(msg: Msg, fn: TaskFunction = fn) -> None:
                self._spawn(msg, fn)

            async def on_probe(msg: Msg, name: str = name) -> None:
                await self._answer_probe(msg, name)

            self._invoke_subs.append(
                await self._nc.subscribe(topology.task_invoke(name), queue=TASK_QUEUE, cb=on_invoke)
            )
            self._probe_subs.append(
                await self._nc.subscribe(topology.task_alive(name), queue=TASK_QUEUE, cb=on_probe)
            )
        await subscriptions_registered(self._nc)  # live on the server before "ready" is said
        log.info(
            "task worker ready",
            extra={
                "worker_id": self.settings.worker_id,
                "tasks": sorted(self.tasks),
                "namespace": topology.namespace,
                "concurrency": self.settings.task_concurrency,
                "code_fingerprint": self.code_fingerprint,
                "code_files": [str(path) for path in self.code.files],
                "pid": os.getpid(),
            },
        )

    async def _answer_probe(self, msg: Msg, name: str) -> None:
        if msg.reply and not self._stopping and not self.code_changed():
            info = TaskWorkerInfo(
                worker_id=self.settings.worker_id,
                name=name,
                concurrency=self.settings.task_concurrency,
                in_flight=self.in_flight,
                code_fingerprint=self.code_fingerprint,
            )
            await msg.respond(info.model_dump_json().encode())

    def _spawn(self, msg: Msg, fn: TaskFunction) -> None:
        """Run each request in its own task: nats-py calls one subscription's callback at a time."""
        task = asyncio.create_task(self._answer(msg, fn))
        self._in_flight.add(task)
        task.add_done_callback(self._in_flight.discard)

    async def _answer(self, msg: Msg, fn: TaskFunction) -> None:
        try:
            request = TaskInvokeRequest.model_validate_json(msg.data)
        except ValidationError as exc:
            reply = TaskInvokeReply(ok=False, error=f"not a TaskInvokeRequest: {exc}")
        else:
            async with self._slots:
                if self.code_changed():
                    reply = self._refusal()
                else:
                    reply = await self._call(request, fn)
        if reply.refused:
            self.refused += 1
        else:
            self.served += 1
        if msg.reply:
            with contextlib.suppress(nats.errors.Error):  # the caller may be gone: it retries
                await msg.respond(reply.model_dump_json().encode())

    def code_changed(self) -> bool:
        """Did the task code change on disk since start? The first time it did: say so, withdraw."""
        if self.stale_files:
            return True
        changed = self.code.changed()
        if not changed:
            return False
        self.stale_files = [path.name for path in changed]
        message = self.stale_message()
        log.warning(
            message,
            extra={"worker_id": self.settings.worker_id, "code_fingerprint": self.code_fingerprint},
        )
        print(f"task worker: {message}", file=sys.stderr, flush=True)
        task = asyncio.create_task(self._withdraw())
        self._in_flight.add(task)
        task.add_done_callback(self._in_flight.discard)
        return True

    def stale_message(self) -> str:
        then = (
            "reloading"
            if self.settings.task_reload
            else "restart it, or run yardstick worker --reload (the server's command) to restart on change"
        )
        return f"task code changed on disk since this worker started ({', '.join(self.stale_files)}); {then}"

    async def _withdraw(self) -> None:
        """Leave the queue group: new calls and probes go to the other replicas (or find none)."""
        for sub in [*self._probe_subs, *self._invoke_subs]:
            with contextlib.suppress(nats.errors.Error):
                await sub.unsubscribe()
        if self._nc is not None and self._nc.is_connected:
            with contextlib.suppress(nats.errors.Error):
                await self._nc.flush()  # the server routes no new call here from now on
        self.code_stale.set()

    def _refusal(self) -> TaskInvokeReply:
        return TaskInvokeReply(
            ok=False,
            refused=True,
            error=f"{self.stale_message()} (code {short(self.code_fingerprint)})",
            worker_id=self.settings.worker_id,
            code_fingerprint=self.code_fingerprint,
        )

    async def _call(self, request: TaskInvokeRequest, fn: TaskFunction) -> TaskInvokeReply:
        worker_id = self.settings.worker_id
        started = time.perf_counter()
        try:
            if fn.is_async:
                async with asyncio.timeout(request.timeout_s):
                    value = await fn.fn(request.input)
            else:
                loop = asyncio.get_running_loop()
                value = await loop.run_in_executor(self._threads, fn.fn, request.input)
            output = as_output(value)
        except Exception as exc:  # the function's own failure: the item's recorded error
            log.warning(
                "task function raised",
                extra={"task": fn.name, "item_id": request.item_id, "error": _describe(exc)},
            )
            failure = ItemFailure.of("target", exc)
            return TaskInvokeReply(
                ok=False,
                error=_describe(exc),
                failure=failure,
                worker_id=worker_id,
                code_fingerprint=self.code_fingerprint,
            )
        latency_ms = round((time.perf_counter() - started) * 1000.0, 3)
        return TaskInvokeReply(
            ok=True,
            output=output,
            worker_id=worker_id,
            latency_ms=latency_ms,
            code_fingerprint=self.code_fingerprint,
        )

    async def stop(self) -> None:
        """Drain (see the module docstring), then disconnect. Idempotent."""
        if self._stopping:
            return
        self._stopping = True
        log.info(
            "task worker draining", extra={"worker_id": self.settings.worker_id, "in_flight": self.in_flight}
        )
        for sub in self._probe_subs:
            with contextlib.suppress(nats.errors.Error):
                await sub.unsubscribe()
        for sub in self._invoke_subs:  # requests already delivered to us still get their callback
            with contextlib.suppress(nats.errors.Error):
                await sub.drain()  # type: ignore[no-untyped-call]
        if self._in_flight:
            _, pending = await asyncio.wait(set(self._in_flight), timeout=self.settings.task_drain_timeout_s)
            for task in pending:  # unanswered: the eval worker times out and another replica gets it
                task.cancel()
            if pending:
                log.warning("drain timeout: %d calls abandoned", len(pending))
        self._threads.shutdown(wait=False, cancel_futures=True)
        if self._nc is not None and not self._nc.is_closed:
            await self._nc.close()
        log.info(
            "task worker stopped",
            extra={"worker_id": self.settings.worker_id, "served": self.served, "refused": self.refused},
        )
