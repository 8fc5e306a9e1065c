"""Publish results to JetStream, several to a message when they come close together.

Each result used to be its own message: a JetStream publish (request and PubAck) from the worker,
then a fetch and a confirmed ack at the coordinator. Now the results a worker scores within
``linger_s`` of its last publish go out together as one :class:`EvalResultBatch` (header
:data:`RESULT_BATCH_HEADER`), at most ``max_results`` and ``max_bytes`` of them. An idle publisher
sends at once, so a lone result waits for nothing; a busy one gathers until ``linger_s`` after its
last publish began (as the coordinator's collector does with its writes). A result larger than
``max_bytes`` goes alone, as an :class:`EvalResult`.

``publish`` returns once JetStream has stored the message holding the result, so the worker acks a
task only after its result is durable, as before. The message id (``Nats-Msg-Id``) is a digest of
the task ids it carries: a publish retried through a leader election (:func:`~shared.messaging.
election.publish_once`) is dropped as a duplicate, while a different set of results never is. A
failure raises :class:`ResultPublishError` in every ``publish`` waiting on that message.
"""

from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass, field

import nats.errors
from nats.js import JetStreamContext
from nats.js.api import PubAck

from services.evaluator.errors import ResultPublishError
from shared.messaging import ELECTION_BUDGET_S, publish_once
from yardstick.api.eval_messages import RESULT_BATCH_HEADER, EvalResult, batch_message_id

RESULT_LINGER_S = 0.005
"""How long a busy publisher gathers results: short next to any target call, and long enough at a
few hundred results a second per worker to send several in one message. (20 ms cut the CPU per item
of 100 ms targets by a few per cent but held the 0 ms case to half its rate: its results, and so
the refills, waited on it.)"""
MAX_RESULTS = 64
MAX_BYTES = 256 * 1024
"""Well under NATS's default ``max_payload`` (1 MiB)."""


@dataclass
class _Waiting:
    task_id: str
    body: bytes
    done: asyncio.Future[PubAck] = field(default_factory=lambda: asyncio.get_running_loop().create_future())


class ResultPublisher:
    def __init__(
        self,
        js: JetStreamContext,
        subject: str,
        stream: str,
        budget_s: float = ELECTION_BUDGET_S,
        *,
        linger_s: float = RESULT_LINGER_S,
        max_results: int = MAX_RESULTS,
        max_bytes: int = MAX_BYTES,
    ) -> None:
        self._js = js
        self._subject = subject
        self._stream = stream
        self._budget_s = budget_s
        self._linger_s = linger_s
        self._max_results = max_results
        self._max_bytes = max_bytes
        self._waiting: list[_Waiting] = []
        self._sender: asyncio.Task[None] | None = None
        self._last_send = -math.inf
        self.messages_sent = 0
        """Messages published (single and batched): results / messages is the batching achieved."""

    async def publish(self, result: EvalResult) -> PubAck:
        """Return the PubAck of the message holding ``result`` (``duplicate=True`` when the stream
        already had it) or raise :class:`ResultPublishError`."""
        waiting = _Waiting(result.task_id, result.model_dump_json().encode())
        if len(waiting.body) > self._max_bytes:
            return await self._send(waiting.body, waiting.task_id, None, [waiting.task_id])
        self._waiting.append(waiting)
        if self._sender is None or self._sender.done():
            self._sender = asyncio.create_task(self._send_waiting(), name="result-publisher")
        return await waiting.done

    async def _send_waiting(self) -> None:
        loop = asyncio.get_running_loop()
        while self._waiting:
            gather_until = self._last_send + self._linger_s
            if len(self._waiting) < self._max_results and (pause := gather_until - loop.time()) > 0:
                await asyncio.sleep(pause)  # busy: gather what is scored meanwhile
            batch = self._take()
            self._last_send = loop.time()
            ids = [w.task_id for w in batch]
            try:
                if len(batch) == 1:
                    ack = await self._send(batch[0].body, ids[0], None, ids)
                else:
                    body = b"[" + b",".join(w.body for w in batch) + b"]"
                    ack = await self._send(body, batch_message_id("results", ids), str(len(batch)), ids)
            except Exception as exc:  # ResultPublishError, or a bug: never leave a waiter hanging
                for w in batch:
                    if not w.done.done():  # a waiter cancelled meanwhile (drain timeout) has gone
                        w.done.set_exception(exc)
            else:
                for w in batch:
                    if not w.done.done():
                        w.done.set_result(ack)

    def _take(self) -> list[_Waiting]:
        size = 0
        for count, waiting in enumerate(self._waiting):
            size += len(waiting.body) + 1
            if count == self._max_results or (count > 0 and size > self._max_bytes):
                break
        else:
            count = len(self._waiting)
        batch, self._waiting = self._waiting[:count], self._waiting[count:]
        return batch

    async def _send(self, body: bytes, msg_id: str, batch_of: str | None, task_ids: list[str]) -> PubAck:
        self.messages_sent += 1
        try:
            return await publish_once(
                self._js,
                self._subject,
                body,
                msg_id=msg_id,
                stream=self._stream,
                budget_s=self._budget_s,
                headers=None if batch_of is None else {RESULT_BATCH_HEADER: batch_of},
            )
        except (nats.errors.Error, TimeoutError) as exc:
            shown = task_ids[0] if len(task_ids) == 1 else f"{len(task_ids)} tasks ({task_ids[0]}, …)"
            raise ResultPublishError(
                f"JetStream did not acknowledge the result of {shown} on {self._subject!r} "
                f"(stream {self._stream}) within {self._budget_s:g}s: {exc}; is the stream declared?"
            ) from exc
