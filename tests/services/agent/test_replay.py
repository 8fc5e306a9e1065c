"""replay_conversation: turns played in order on one thread, nothing after finalization, earlier
messages honoured, failures reported as ok=False."""

from __future__ import annotations

import pytest

from services.agent.replay import replay_conversation
from services.agent.runtime import AgentRuntime
from shared.contracts.agent_conversation import AgentConversationRequest
from yardstick.api.agent_messages import ModelConfig, TrajectoryMessage

pytestmark = pytest.mark.unit


def _ids(lines: list[object]) -> list[tuple[str, int]]:
    return [(line.item_id, line.quantity) for line in lines]  # type: ignore[attr-defined]


async def test_the_order_carries_over_and_is_finalized_after_the_readback(runtime: AgentRuntime) -> None:
    turns = ["Can I get an Egg McMuffin", "and two hash browns", "that's all", "yes"]
    reply = await replay_conversation(AgentConversationRequest(turns=turns, conversation_id="c1"), runtime)
    assert reply.ok and reply.conversation_id == "c1" and reply.stopped == "completed"
    assert [t.customer_utterance for t in reply.turns] == turns
    assert _ids(reply.turns[0].order_items) == [("egg-mcmuffin", 1)]
    assert _ids(reply.turns[1].order_items) == [("egg-mcmuffin", 1), ("hash-browns", 2)]
    assert (
        reply.turns[2].tool_calls == ["get_current_order"] and "Is that correct?" in reply.turns[2].response
    )
    assert reply.turns[3].tool_calls == ["finalize_order"] and reply.turns[3].finalized
    assert reply.finalized and _ids(reply.order_items) == _ids(reply.turns[1].order_items)
    assert reply.tool_calls == [name for t in reply.turns for name in t.tool_calls]
    assert sum(m.type == "human" for m in reply.trajectory) == 4
    assert reply.response == reply.turns[-1].response and reply.item_count == 3


async def test_turns_after_finalization_are_not_played(runtime: AgentRuntime) -> None:
    turns = ["An Egg McMuffin", "that's all", "yes", "and a coffee"]
    reply = await replay_conversation(AgentConversationRequest(turns=turns), runtime)
    assert reply.ok and reply.stopped == "finalized_early"
    assert len(reply.turns) == 3 and reply.turns_scripted == 4
    assert _ids(reply.order_items) == [("egg-mcmuffin", 1)]


async def test_earlier_messages_are_the_start_of_the_conversation(runtime: AgentRuntime) -> None:
    first = await replay_conversation(AgentConversationRequest(turns=["Two hash browns"]), runtime)
    reply = await replay_conversation(
        AgentConversationRequest(turns=["that's all"], messages=first.trajectory), runtime
    )
    assert reply.ok and "two Hash Browns" in reply.response
    assert _ids(reply.order_items) == [("hash-browns", 2)]
    assert reply.trajectory[0] == TrajectoryMessage(type="human", content="that's all")


async def test_an_unavailable_model_is_ok_false(runtime: AgentRuntime) -> None:
    request = AgentConversationRequest(turns=["hi"], model=ModelConfig(provider="mistral", name="m"))
    reply = await replay_conversation(request, runtime)
    assert not reply.ok and reply.error and reply.turns == [] and reply.turns_scripted == 1
