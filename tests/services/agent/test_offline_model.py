"""Offline model behaviour beyond the single-turn dataset."""

from __future__ import annotations

import time

import pytest

from services.agent.invoke import invoke_agent
from services.agent.runtime import AgentRuntime
from yardstick.api.agent_messages import AgentInvokeRequest, ModelConfig, OfflineBehaviour
from yardstick.api.spend import is_offline_model

pytestmark = pytest.mark.unit


async def ask(
    runtime: AgentRuntime, text: str, behaviour: OfflineBehaviour | None = None
) -> tuple[str, list[str]]:
    model = ModelConfig(offline=behaviour or OfflineBehaviour())
    response = await invoke_agent(AgentInvokeRequest(customer_utterance=text, model=model), runtime)
    assert response.ok, response.error
    return response.response, response.tool_calls


@pytest.mark.parametrize(
    ("text", "reply_part", "tools"),
    [
        ("How much is a coffee?", "total will be at the window", []),
        ("Can you remove the hash browns?", "only add items", []),
        ("What did I order?", "Your order is empty so far", ["get_current_order"]),
        ("a qwerty sandwich", "Sorry, we don't have Qwerty Sandwich", ["lookup_menu_item"]),
        ("Egg McMuffin with onions", "'onion' isn't an option for the Egg McMuffin", None),
        ("a sausage mcgriddles with egg", "one Sausage McGriddles with Add Egg", None),
    ],
)
async def test_replies(runtime: AgentRuntime, text: str, reply_part: str, tools: list[str] | None) -> None:
    reply, calls = await ask(runtime, text)
    assert reply_part in reply
    if tools is not None:
        assert calls == tools


async def test_simulated_latency_is_off_by_default_and_slows_each_model_call(runtime: AgentRuntime) -> None:
    started = time.perf_counter()
    await ask(runtime, "an egg mcmuffin", OfflineBehaviour(simulated_latency_ms=50))
    assert time.perf_counter() - started >= 0.15  # three model calls: lookup, add, reply


async def test_silent_drift_finalizes_without_read_back_same_identity(runtime: AgentRuntime) -> None:
    reply, calls = await ask(runtime, "That's all")
    assert calls == ["get_current_order"] and "Your order" in reply
    drifted = OfflineBehaviour(simulate_silent_drift=True)
    _, calls = await ask(runtime, "That's all", drifted)
    assert calls == ["finalize_order"]
    assert drifted.identity == OfflineBehaviour().identity == "offline:ask"


async def test_the_offline_model_reports_no_tokens_under_its_offline_name(runtime: AgentRuntime) -> None:
    """Nothing was called or billed: zero tokens, and the model name that marks it offline."""
    behaviour = OfflineBehaviour(understand_modifiers=False)
    model = ModelConfig(offline=behaviour)
    request = AgentInvokeRequest(customer_utterance="two hash browns please", model=model)
    response = await invoke_agent(request, runtime)
    assert response.ok, response.error
    assert response.usage is not None
    assert (response.usage.input_tokens, response.usage.output_tokens, response.usage.total_tokens) == (
        0,
        0,
        0,
    )
    assert response.usage.model == behaviour.identity == "offline:ask,no-modifiers"
    assert is_offline_model(response.usage.model)
