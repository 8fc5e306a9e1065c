"""The agent through the ``mistral`` provider (``ChatMistralAI``) against the bad-day server, which
speaks the chat-completions shape Mistral's API shares (``MISTRAL_BASE_URL`` pointing at it): its
requests and retries are counted per turn like the ``openai`` provider's, and its client re-sends
after a 429 (honouring ``Retry-After``), a 5xx or a timeout like the OpenAI SDK does, within
``MISTRAL_MAX_RETRIES``; the agent graph's attempts repeat what still fails."""

from __future__ import annotations

import time

import pytest

from services.agent.chat_models import ModelFactory
from services.agent.invoke import invoke_agent
from services.agent.runtime import AgentRuntime
from tests.llm_provider import BadDayProvider, Reply
from tests.services.agent.conftest import offline_settings
from tests.services.agent.test_openai_provider import ADD, FAST_RETRY, LOOKUP
from yardstick.api.agent_messages import AgentInvokeRequest, AgentInvokeResponse, ModelConfig

pytestmark = [pytest.mark.integration, pytest.mark.timeout(60)]

MISTRAL = ModelConfig(provider="mistral", name="bad-day-model")


@pytest.fixture
def mistral(provider: BadDayProvider, monkeypatch: pytest.MonkeyPatch) -> BadDayProvider:
    monkeypatch.setenv("MISTRAL_BASE_URL", provider.base_url)
    return provider


async def order(request: str = "two hash browns please", **settings: object) -> AgentInvokeResponse:
    agent_settings = offline_settings(mistral_api_key="not-a-real-key", **settings)
    runtime = AgentRuntime.from_settings(agent_settings, ModelFactory(agent_settings))
    return await invoke_agent(AgentInvokeRequest(customer_utterance=request, model=MISTRAL), runtime)


async def test_tool_calls_through_mistral_are_counted(mistral: BadDayProvider) -> None:
    mistral.then(LOOKUP, ADD, Reply(content="Two hash browns. Anything else?"))
    response = await order()
    assert response.ok, response.error
    assert [(line.item_id, line.quantity) for line in response.order_items] == [("hash-browns", 2)]
    assert response.model == "mistral:bad-day-model"
    assert (response.llm_requests, response.llm_retries) == (3, 0) == (len(mistral.seen), 0)


async def test_429_and_5xx_are_sent_again_by_the_client_honouring_retry_after(
    mistral: BadDayProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LLM_BACKOFF_S", "0.01")
    mistral.then(
        Reply(status=429, body="slow down", headers={"Retry-After": "1"}),
        LOOKUP,
        Reply(status=502, body="bad gateway"),
        Reply(status=503, body="overloaded", headers=FAST_RETRY),
        ADD,
        Reply(content="Done."),
    )
    started = time.monotonic()
    response = await order(mistral_max_retries=2)
    waited = time.monotonic() - started
    assert response.ok, response.error
    assert [(line.item_id, line.quantity) for line in response.order_items] == [("hash-browns", 2)]
    assert mistral.statuses() == [429, 200, 502, 503, 200, 200]  # each failure re-sent by the client
    assert (response.llm_requests, response.llm_retries) == (6, 3)
    assert waited >= 1.0  # the 429's Retry-After was waited for


async def test_a_retry_after_longer_than_allowed_is_not_waited_for(
    mistral: BadDayProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LLM_MAX_RETRY_AFTER_S", "1")
    mistral.fallback = Reply.error(429, retry_after="120")
    response = await order(mistral_max_retries=3)
    assert not response.ok and response.error is not None and "429" in response.error
    assert len(mistral.seen) == 1  # not re-sent by the client (nor by the graph, which retries 5xx only)


async def test_a_timeout_is_sent_again_and_counted(mistral: BadDayProvider) -> None:
    mistral.then(Reply(content="too late", delay_s=4), Reply(content="Hi! What can I get you?"))
    response = await order("hello", mistral_timeout_s=1, mistral_max_retries=1)
    assert response.ok and response.response == "Hi! What can I get you?"
    assert (response.llm_requests, response.llm_retries) == (2, 1)


async def test_a_provider_that_stays_down_ends_ok_false_with_every_request_counted(
    mistral: BadDayProvider,
) -> None:
    mistral.fallback = Reply.error(503)
    response = await order()
    assert not response.ok and response.error is not None and "503" in response.error
    assert response.llm_requests == len(mistral.seen) >= 1
    assert response.llm_retries == len(mistral.seen) - 1, "every failed request but the last was re-sent"
