"""Publish an :class:`EvalResult` to JetStream with its task id as ``Nats-Msg-Id``."""

from __future__ import annotations

import asyncio
import logging

import nats.errors
from nats.js import JetStreamContext
from nats.js.api import PubAck

from services.evaluator.errors import ResultPublishError
from shared.contracts.eval_messages import EvalResult

log = logging.getLogger(__name__)

PUBLISH_TIMEOUT_S = 5.0


class ResultPublisher:
    def __init__(self, js: JetStreamContext, subject: str, stream: str, attempts: int = 3) -> None:
        self._js = js
        self._subject = subject
        self._stream = stream
        self._attempts = attempts

    async def publish(self, result: EvalResult) -> PubAck:
        """Return the PubAck (``duplicate=True`` for a redelivered task) or raise ResultPublishError."""
        payload = result.model_dump_json().encode()
        last: Exception | None = None
        for attempt in range(1, self._attempts + 1):
            try:
                return await self._js.publish(
                    self._subject,
                    payload,
                    timeout=PUBLISH_TIMEOUT_S,
                    stream=self._stream,
                    headers={"Nats-Msg-Id": result.task_id},
                )
            except nats.errors.Error as exc:
                last = exc
                log.warning(
                    "result publish failed (try %d/%d): %s",
                    attempt,
                    self._attempts,
                    exc,
                    extra={"task_id": result.task_id},
                )
                if attempt < self._attempts:
                    await asyncio.sleep(0.2 * attempt)  # retry pause, not a wait for an event
        raise ResultPublishError(
            f"JetStream did not acknowledge the result of {result.task_id} on {self._subject!r} "
            f"(stream {self._stream}) after {self._attempts} tries: {last}; is the stream declared?"
        )
