"""The drive-thru agent over ``agent.invoke``."""

from __future__ import annotations

from nats.aio.client import Client as NatsClient
from pydantic import ValidationError

from services.evaluator.errors import TargetConfigError, TargetRejected
from services.evaluator.targets.base import CallContext, TargetOutput
from services.evaluator.targets.nats_request import request_json
from shared.contracts.agent_messages import AgentInvokeRequest, AgentInvokeResponse, TrajectoryMessage
from shared.contracts.eval_messages import AgentTarget, EvalTask


class AgentInvokeTarget:
    def __init__(self, nc: NatsClient, subject: str) -> None:
        self._nc = nc
        self._subject = subject

    def build_request(self, task: EvalTask) -> AgentInvokeRequest:
        if not isinstance(task.target, AgentTarget):
            raise TargetConfigError(f"agent target given a {task.target.kind!r} task")
        try:
            return AgentInvokeRequest(
                customer_utterance=task.input["customer_utterance"],
                messages=[TrajectoryMessage.model_validate(m) for m in task.input.get("messages", [])],
                model=task.target.model,
            )
        except KeyError as exc:
            raise TargetConfigError(
                f"item {task.item_id!r} has no input.customer_utterance, which the agent target needs"
            ) from exc
        except ValidationError as exc:
            raise TargetConfigError(
                f"item {task.item_id!r} input does not fit the agent request: {exc}"
            ) from exc

    async def call(self, task: EvalTask, ctx: CallContext) -> TargetOutput:
        request = self.build_request(task)
        raw = await request_json(
            self._nc, self._subject, request, timeout_s=task.timeout_s, headers=ctx.headers()
        )
        try:
            response = AgentInvokeResponse.model_validate_json(raw)
        except ValidationError as exc:
            raise TargetRejected(f"agent reply is not an AgentInvokeResponse: {exc}") from exc
        if not response.ok:
            raise TargetRejected(f"agent answered with an error: {response.error or '(no message)'}")
        return TargetOutput(output=response.model_dump(mode="json"), usage=response.usage)
