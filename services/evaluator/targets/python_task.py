"""A user's Python function, served by task workers (``yardstick worker module:function``), over
``<ns>.task.invoke.<name>`` (NATS request/reply, queue group: one replica answers).

The eval worker keeps every delivery rule: its JetStream lease covers the call, a timeout or a
missing responder is transient (nack, backoff, redelivery, possibly to another replica), the result
is published once under ``Nats-Msg-Id``. A worker whose code changed on disk since it started refuses
the call (transient too: redelivered, to a fresh worker) rather than answer with old code; the
fingerprint of the code that answered goes with the result. The function raising is the item's
recorded error, never retried: a bug does not go away on a second attempt.
"""

from __future__ import annotations

from nats.aio.client import Client as NatsClient
from pydantic import ValidationError

from services.evaluator.errors import TargetConfigError, TargetFailed, TargetRejected, TargetUnavailable
from services.evaluator.targets.base import CallContext, TargetOutput
from services.evaluator.targets.nats_request import request_json
from yardstick.api.eval_messages import EvalTask, PythonTarget
from yardstick.api.task_messages import TaskInvokeReply, TaskInvokeRequest
from yardstick.api.topology import Topology


class PythonTaskTarget:
    def __init__(self, nc: NatsClient, topology: Topology) -> None:
        self._nc = nc
        self._topology = topology

    async def call(self, task: EvalTask, ctx: CallContext) -> TargetOutput:
        spec = task.target
        if not isinstance(spec, PythonTarget):
            raise TargetConfigError(f"python target given a {spec.kind!r} task")
        request = TaskInvokeRequest(
            experiment_id=task.experiment_id,
            item_id=task.item_id,
            trial=task.trial,
            attempt=ctx.attempt,
            input=task.input,
            expected_output=task.expected_output,
            metadata=task.metadata,
            timeout_s=task.timeout_s,
        )
        try:
            raw = await request_json(
                self._nc,
                self._topology.task_invoke(spec.name),
                request,
                timeout_s=task.timeout_s,
                headers=ctx.headers(),
            )
        except TargetUnavailable as exc:
            raise TargetUnavailable(
                f"{exc}; a task worker serves it: `yardstick worker MODULE:FUNCTION` "
                f"with @yardstick.task({spec.name!r})"
            ) from exc
        try:
            reply = TaskInvokeReply.model_validate_json(raw)
        except ValidationError as exc:
            raise TargetRejected(f"task worker reply is not a TaskInvokeReply: {exc}") from exc
        if reply.refused:  # its code changed on disk: never scored with old code; a fresh worker gets it
            raise TargetUnavailable(f"task worker {reply.worker_id} refused: {reply.error}")
        if not reply.ok or reply.output is None:
            message = f"python task {spec.name!r} failed: {reply.error or '(no message)'}"
            if reply.failure is not None:  # a task worker of the previous version sends only the string
                raise TargetFailed(message, reply.failure)
            raise TargetRejected(message)
        return TargetOutput(output=reply.output, code_fingerprint=reply.code_fingerprint)
