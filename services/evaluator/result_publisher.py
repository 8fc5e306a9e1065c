"""Publish an :class:`EvalResult` to JetStream with its task id as ``Nats-Msg-Id``.

A publish rides out a stream leader election (:func:`shared.messaging.election.publish_once`,
``EVAL_PUBLISH_BUDGET_S``): a result published while the results stream has no leader waits for
the new one instead of failing, being nacked and waiting for redelivery."""

from __future__ import annotations

import nats.errors
from nats.js import JetStreamContext
from nats.js.api import PubAck

from services.evaluator.errors import ResultPublishError
from shared.contracts.eval_messages import EvalResult
from shared.messaging import ELECTION_BUDGET_S, publish_once


class ResultPublisher:
    def __init__(
        self, js: JetStreamContext, subject: str, stream: str, budget_s: float = ELECTION_BUDGET_S
    ) -> None:
        self._js = js
        self._subject = subject
        self._stream = stream
        self._budget_s = budget_s

    async def publish(self, result: EvalResult) -> PubAck:
        """Return the PubAck (``duplicate=True`` for a redelivered task) or raise ResultPublishError."""
        try:
            return await publish_once(
                self._js,
                self._subject,
                result.model_dump_json().encode(),
                msg_id=result.task_id,
                stream=self._stream,
                budget_s=self._budget_s,
            )
        except (nats.errors.Error, TimeoutError) as exc:
            raise ResultPublishError(
                f"JetStream did not acknowledge the result of {result.task_id} on {self._subject!r} "
                f"(stream {self._stream}) within {self._budget_s:g}s: {exc}; is the stream declared?"
            ) from exc
