"""Building the agent's model from a request's ModelConfig (no network)."""

from __future__ import annotations

import pytest

from services.agent.chat_models import ModelFactory, ModelUnavailableError, agent_llm_config, make_remote
from shared.llm import LlmSettings
from tests.services.agent.conftest import offline_settings
from yardstick.api.agent_messages import ModelConfig

pytestmark = pytest.mark.unit

OPENAI = ModelConfig(provider="openai", name="bad-day-model")


@pytest.fixture(autouse=True)
def no_openai_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_MODEL", "LLM_TIMEOUT_S", "LLM_MAX_RETRIES"):
        monkeypatch.delenv(name, raising=False)


def test_openai_needs_a_model_name_and_an_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ModelUnavailableError, match="OPENAI_BASE_URL"):
        agent_llm_config(OPENAI, offline_settings())
    llm = LlmSettings(openai_base_url="http://127.0.0.1:8000/v1")
    with pytest.raises(ModelUnavailableError, match="needs a model name"):
        agent_llm_config(ModelConfig(provider="openai"), offline_settings(), llm)
    named = agent_llm_config(
        ModelConfig(provider="openai"), offline_settings(), llm.model_copy(update={"openai_model": "m"})
    )
    assert named.identity == "openai:m"


def test_chat_model_auto_picks_openai_with_an_endpoint_and_a_model(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = offline_settings(chat_model="auto")
    assert ModelFactory(settings).default_chat_config().provider == "offline"
    endpoint = LlmSettings(openai_base_url="http://127.0.0.1:8000/v1")
    assert ModelFactory(settings, llm=endpoint).default_chat_config().provider == "offline"  # no model named
    named = endpoint.model_copy(update={"openai_model": "qwen"})
    chosen = ModelFactory(settings, llm=named).default_chat_config()
    assert (chosen.provider, chosen.name) == ("openai", "qwen")


def test_openai_model_is_chat_openai_on_the_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:11434/v1")
    monkeypatch.setenv("LLM_TIMEOUT_S", "12")
    monkeypatch.setenv("LLM_MAX_RETRIES", "1")
    model = make_remote(ModelConfig(provider="openai", name="llama3.2", temperature=0.4), offline_settings())
    from langchain_openai import ChatOpenAI

    assert isinstance(model, ChatOpenAI)
    assert (model.model_name, model.openai_api_base, model.request_timeout, model.max_retries) == (
        "llama3.2",
        "http://127.0.0.1:11434/v1",
        12.0,
        1,
    )
    assert model.temperature == 0.4
