"""How the agent target turns a conversation item into an ``agent.converse`` request, and which
items it sends there."""

from __future__ import annotations

from typing import Any, cast

import pytest
from nats.aio.client import Client as NatsClient

from services.evaluator.errors import TargetConfigError
from services.evaluator.targets.agent_conversation import AgentConversationTarget, AgentTargetByItem
from services.evaluator.targets.base import CallContext, TargetOutput
from yardstick.api.agent_messages import ModelConfig
from yardstick.api.eval_messages import AgentTarget, EvalTask
from yardstick.api.topology import Topology

pytestmark = pytest.mark.unit

NO_NATS = cast(NatsClient, None)


def task(input: dict[str, Any], target: AgentTarget | None = None) -> EvalTask:
    return EvalTask(experiment_id="e", item_id="conv-1", trial=2, input=input, target=target or AgentTarget())


def test_conversation_request_carries_turns_history_model_and_a_thread_per_trial() -> None:
    model = ModelConfig(provider="offline")
    history = [{"type": "human", "content": "hi"}, {"type": "ai", "content": "hello"}]
    req = AgentConversationTarget(NO_NATS, "x").build_request(
        task(
            {"turns": ["an egg mcmuffin", "that's all", "yes"], "messages": history}, AgentTarget(model=model)
        )
    )
    assert req.turns == ["an egg mcmuffin", "that's all", "yes"]
    assert [m.type for m in req.messages] == ["human", "ai"]
    assert req.conversation_id == "e:conv-1:2"
    assert req.model == model


@pytest.mark.parametrize("bad", [{"turns": []}, {"turns": ["ok", "  "]}, {"turns": "one string"}])
def test_an_item_that_is_not_a_conversation_is_a_config_error(bad: dict[str, Any]) -> None:
    with pytest.raises(TargetConfigError, match=r"conv-1.*not a conversation"):
        AgentConversationTarget(NO_NATS, "x").build_request(task(bad))


class _Recording:
    def __init__(self, name: str, calls: list[str]) -> None:
        self.name, self.calls = name, calls

    async def call(self, task: EvalTask, ctx: CallContext) -> TargetOutput:
        self.calls.append(self.name)
        return TargetOutput(output={})


async def test_conversation_items_go_to_agent_converse_the_rest_to_agent_invoke() -> None:
    target = AgentTargetByItem(NO_NATS, Topology())
    calls: list[str] = []
    target._single = _Recording("invoke", calls)  # type: ignore[assignment]
    target._conversation = _Recording("converse", calls)  # type: ignore[assignment]
    ctx = CallContext(worker_id="w", task_id="t", attempt=1)
    await target.call(task({"turns": ["hi"]}), ctx)
    await target.call(task({"customer_utterance": "hi"}), ctx)
    assert calls == ["converse", "invoke"]
