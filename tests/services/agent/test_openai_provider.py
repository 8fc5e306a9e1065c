"""The agent through the ``openai`` provider (``ChatOpenAI`` on the provider layer) against a
provider on a bad day: a scripted local OpenAI-compatible server."""

from __future__ import annotations

import os
from typing import NamedTuple

import pytest

from services.agent.chat_models import ModelFactory
from services.agent.invoke import invoke_agent
from services.agent.runtime import AgentRuntime
from tests.llm_provider import BadDayProvider, Reply
from tests.services.agent.conftest import offline_settings
from yardstick.api.agent_messages import AgentInvokeRequest, ModelConfig, TokenUsage

pytestmark = pytest.mark.integration

OPENAI = ModelConfig(provider="openai", name="bad-day-model")
LOOKUP = Reply.tool_call("lookup_menu_item", {"item_name": "hash browns"}, "call-1")
ADD = Reply.tool_call(
    "add_item_to_order",
    {"item_id": "hash-browns", "item_name": "Hash Browns", "category_name": "snacks-sides", "quantity": 2},
    "call-2",
)
FAST_RETRY = {"Retry-After": "0.02"}  # the OpenAI SDK honours Retry-After up to 60 s


COUNTS: list[tuple[int | None, int | None]] = []
"""(llm_requests, llm_retries) of each turn, in order."""


def runtime() -> AgentRuntime:
    settings = offline_settings()
    return AgentRuntime.from_settings(settings, ModelFactory(settings))


class Turn(NamedTuple):
    ok: bool
    lines: list[tuple[str, int]]
    tools: list[str]
    reply: str
    model: str
    error: str | None
    usage: TokenUsage | None


async def order(request: str = "two hash browns please") -> Turn:
    response = await invoke_agent(AgentInvokeRequest(customer_utterance=request, model=OPENAI), runtime())
    COUNTS.append((response.llm_requests, response.llm_retries))
    return Turn(
        response.ok,
        [(line.item_id, line.quantity) for line in response.order_items],
        response.tool_calls,
        response.response,
        response.model,
        response.error,
        response.usage,
    )


async def test_tool_calls_through_an_openai_compatible_endpoint(provider: BadDayProvider) -> None:
    provider.then(LOOKUP, ADD, Reply(content="Two hash browns. Anything else?"))
    ok, lines, tools, reply, model, error, usage = await order()
    assert (ok, error) == (True, None)
    assert lines == [("hash-browns", 2)] and tools == ["lookup_menu_item", "add_item_to_order"]
    assert reply == "Two hash browns. Anything else?" and model == "openai:bad-day-model"
    assert usage is not None and (usage.input_tokens, usage.output_tokens) == (33, 21)  # three calls
    assert COUNTS[-1] == (3, 0)
    first = provider.seen[0].body
    assert first["model"] == "bad-day-model" and {t["function"]["name"] for t in first["tools"]} >= {
        "lookup_menu_item",
        "add_item_to_order",
    }


async def test_429_and_500_are_retried_by_the_client_within_its_bound(provider: BadDayProvider) -> None:
    provider.then(
        Reply(status=429, body="slow down", headers=FAST_RETRY),
        LOOKUP,
        Reply(status=500, body="oops", headers=FAST_RETRY),
        ADD,
        Reply(content="Done."),
    )
    ok, lines, *_ = await order()
    assert ok and lines == [("hash-browns", 2)]
    assert provider.statuses() == [429, 200, 500, 200, 200]  # each failure re-sent once
    assert COUNTS[-1] == (5, 2)  # recorded in the response


async def test_a_provider_that_stays_down_ends_ok_false_with_the_reason(
    provider: BadDayProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LLM_MAX_RETRIES", "1")
    provider.fallback = Reply(status=503, body="overloaded", headers=FAST_RETRY)
    ok, lines, _tools, _reply, model, error, _usage = await order()
    assert not ok and lines == [] and model == "openai:bad-day-model"
    assert error is not None and "503" in error
    # the client's 1 retry, under the graph's 3 attempts of the orchestrator node
    assert len(provider.seen) == 2 * 3
    assert COUNTS[-1] == (6, 5)  # every request failed; the last one was not sent again


async def test_a_slow_reply_times_out_and_is_sent_again(
    provider: BadDayProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LLM_TIMEOUT_S", "1.5")
    provider.then(Reply(content="too late", delay_s=6), Reply(content="Hi! What can I get you?"))
    ok, lines, _tools, reply, *_ = await order("hello")
    assert ok and lines == [] and reply == "Hi! What can I get you?"
    assert COUNTS[-1] == (2, 1)


async def test_odd_tool_arguments_come_back_to_the_model_as_a_tool_error(provider: BadDayProvider) -> None:
    odd = Reply.tool_call(
        "add_item_to_order",
        {
            "item_id": "hash-browns",
            "item_name": "Hash Browns",
            "category_name": "snacks-sides",
            "quantity": 99,
        },
        "call-1",
    )
    provider.then(odd, Reply(content="Sorry, at most 20."))
    ok, lines, tools, reply, *_ = await order()
    assert ok and lines == [] and tools == ["add_item_to_order"] and reply == "Sorry, at most 20."
    tool_message = provider.seen[1].body["messages"][-1]
    assert tool_message["role"] == "tool" and "quantity must be between 1 and 20" in tool_message["content"]


async def test_tool_call_arguments_that_are_not_json_end_the_turn_without_an_order(
    provider: BadDayProvider,
) -> None:
    provider.then(Reply.tool_call("lookup_menu_item", '{"item_name": "hash', "call-1"))
    ok, lines, tools, reply, *_ = await order()
    assert ok and lines == [] and tools == [] and reply == ""
    assert len(provider.seen) == 1


@pytest.mark.live_llm
@pytest.mark.skipif(not os.environ.get("OPENAI_API_KEY"), reason="needs OPENAI_API_KEY (and OPENAI_MODEL)")
async def test_live_openai_agent_turn() -> None:
    model = ModelConfig(provider="openai", name=os.environ.get("OPENAI_MODEL") or "gpt-4o-mini")
    response = await invoke_agent(
        AgentInvokeRequest(customer_utterance="one hash browns", model=model), runtime()
    )
    assert response.ok, response.error
