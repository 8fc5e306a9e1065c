"""The drive-thru agent over ``agent.converse``: a conversation item's turns replayed in one agent
thread; and the agent target that picks ``agent.converse`` for conversation items (``input.turns``)
and ``agent.invoke`` for the rest."""

from __future__ import annotations

from nats.aio.client import Client as NatsClient
from pydantic import ValidationError

from services.evaluator.errors import TargetConfigError
from services.evaluator.targets.agent import AgentInvokeTarget
from services.evaluator.targets.base import CallContext, TargetOutput
from services.evaluator.targets.nats_request import NatsRequestTarget
from shared.contracts.agent_conversation import AgentConversationRequest, AgentConversationResponse
from shared.datasets.conversations import ConversationInput
from yardstick.api.eval_messages import AgentTarget, EvalTask
from yardstick.api.topology import Topology


class AgentConversationTarget(NatsRequestTarget[AgentConversationRequest, AgentConversationResponse]):
    service = "agent"
    reply_model = AgentConversationResponse

    def build_request(self, task: EvalTask) -> AgentConversationRequest:
        if not isinstance(task.target, AgentTarget):
            raise TargetConfigError(f"agent target given a {task.target.kind!r} task")
        try:
            conversation = ConversationInput.model_validate(task.input)
        except ValidationError as exc:
            raise TargetConfigError(f"item {task.item_id!r} is not a conversation: {exc}") from exc
        return AgentConversationRequest(
            turns=conversation.turns,
            messages=conversation.messages,
            conversation_id=task.task_id,
            model=task.target.model,
            prompt=task.target.prompt,
            project=task.project,
        )

    def output(self, reply: AgentConversationResponse) -> TargetOutput:
        return TargetOutput(output=reply.model_dump(mode="json"), usage=reply.usage)


class AgentTargetByItem:
    """``kind: agent``: a conversation item (``input.turns``) is replayed over ``agent.converse``,
    any other item is one turn over ``agent.invoke``."""

    def __init__(self, nc: NatsClient, topology: Topology) -> None:
        self._single = AgentInvokeTarget(nc, topology.agent_invoke)
        self._conversation = AgentConversationTarget(nc, topology.agent_converse)

    async def call(self, task: EvalTask, ctx: CallContext) -> TargetOutput:
        if "turns" in task.input:
            return await self._conversation.call(task, ctx)
        return await self._single.call(task, ctx)
