"""The drive-thru agent over ``agent.invoke``."""

from __future__ import annotations

from pydantic import ValidationError

from services.evaluator.errors import TargetConfigError
from services.evaluator.targets.base import TargetOutput
from services.evaluator.targets.nats_request import NatsRequestTarget
from yardstick.api.agent_messages import AgentInvokeRequest, AgentInvokeResponse, TrajectoryMessage
from yardstick.api.eval_messages import AgentTarget, EvalTask


class AgentInvokeTarget(NatsRequestTarget[AgentInvokeRequest, AgentInvokeResponse]):
    service = "agent"
    reply_model = AgentInvokeResponse

    def build_request(self, task: EvalTask) -> AgentInvokeRequest:
        if not isinstance(task.target, AgentTarget):
            raise TargetConfigError(f"agent target given a {task.target.kind!r} task")
        try:
            return AgentInvokeRequest(
                customer_utterance=task.input["customer_utterance"],
                messages=[TrajectoryMessage.model_validate(m) for m in task.input.get("messages", [])],
                model=task.target.model,
                prompt=task.target.prompt,
                project=task.project,
            )
        except KeyError as exc:
            raise TargetConfigError(
                f"item {task.item_id!r} has no input.customer_utterance, which the agent target needs"
            ) from exc
        except ValidationError as exc:
            raise TargetConfigError(
                f"item {task.item_id!r} input does not fit the agent request: {exc}"
            ) from exc

    def output(self, reply: AgentInvokeResponse) -> TargetOutput:
        return TargetOutput(output=reply.model_dump(mode="json"), usage=reply.usage)
