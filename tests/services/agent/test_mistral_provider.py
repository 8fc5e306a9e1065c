"""The agent through the ``mistral`` provider (``ChatMistralAI``) against the bad-day server, which
speaks the chat-completions shape Mistral's API shares (``MISTRAL_BASE_URL`` pointing at it): its
requests and retries are counted per turn like the ``openai`` provider's. ``ChatMistralAI`` itself
re-sends only after a timeout or a connection error; a 429 or 5xx fails its call at once and the
agent graph's attempts repeat it."""

from __future__ import annotations

import pytest

from services.agent.chat_models import ModelFactory
from services.agent.invoke import invoke_agent
from services.agent.runtime import AgentRuntime
from shared.contracts.agent_messages import AgentInvokeRequest, AgentInvokeResponse, ModelConfig
from tests.llm_provider import BadDayProvider, Reply
from tests.services.agent.conftest import offline_settings
from tests.services.agent.test_openai_provider import ADD, LOOKUP

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
