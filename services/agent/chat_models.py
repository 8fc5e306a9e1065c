"""Choosing the chat model for a request from its :class:`ModelConfig`.

``offline`` is the deterministic offline model; ``mistral`` and ``openai`` (any OpenAI-compatible
endpoint: ``OPENAI_BASE_URL``, ``OPENAI_API_KEY``) are built by the provider layer
(:func:`shared.llm.chat_model`). The model name comes from the request (``--set model.name=…``),
else ``MISTRAL_MODEL`` for mistral and ``OPENAI_MODEL`` for openai.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from langchain_core.language_models import BaseChatModel

from services.agent.offline_model import OfflineDriveThruModel
from services.agent.settings import AgentSettings
from shared.http.problem_details import ProblemError
from shared.llm import LlmConfig, LlmNotConfigured, LlmSettings, chat_model, llm_config
from yardstick.api.agent_messages import ModelConfig


class ModelUnavailableError(ProblemError, RuntimeError):
    """The requested model cannot be used in this deployment (e.g. no API key)."""

    status_code = 503


@dataclass(frozen=True)
class ChosenModel:
    model: BaseChatModel
    identity: str  # e.g. "offline:ask", "mistral:mistral-small-latest", "openai:qwen2.5-7b-instruct"


RemoteFactory = Callable[[ModelConfig, AgentSettings], BaseChatModel]


def agent_llm_config(
    config: ModelConfig, settings: AgentSettings, llm: LlmSettings | None = None
) -> LlmConfig:
    """The provider layer's configuration for a mistral/openai request; :class:`ModelUnavailableError`
    saying what to set when it cannot be used. Mistral keeps the agent's own key, timeout and retries
    (``MISTRAL_TIMEOUT_S``, ``MISTRAL_MAX_RETRIES``); openai uses ``LLM_TIMEOUT_S``/``LLM_MAX_RETRIES``."""
    env = (llm or LlmSettings()).model_copy(update={"mistral_api_key": settings.mistral_api_key})
    try:
        chosen = llm_config(
            config.provider,
            config.name,
            temperature=config.temperature,
            settings=env,
            default_mistral_model=settings.mistral_model,
        )
    except LlmNotConfigured as exc:
        raise ModelUnavailableError(
            f"model provider {config.provider!r}: {exc}; set it for the agent service, "
            "or request provider 'offline'"
        ) from exc
    if chosen.provider == "mistral":
        return chosen.model_copy(
            update={"timeout_s": settings.mistral_timeout_s, "max_retries": settings.mistral_max_retries}
        )
    return chosen


def make_remote(config: ModelConfig, settings: AgentSettings) -> BaseChatModel:
    """``ChatMistralAI`` or ``ChatOpenAI`` with explicit timeout and retries."""
    return chat_model(agent_llm_config(config, settings))


class ModelFactory:
    """Builds the model for a request. ``remote_factory`` is replaceable (tests use a fake)."""

    def __init__(
        self,
        settings: AgentSettings,
        remote_factory: RemoteFactory = make_remote,
        llm: LlmSettings | None = None,
    ) -> None:
        self._settings = settings
        self._remote_factory = remote_factory
        self._llm = llm or LlmSettings()

    def identity(self, config: ModelConfig) -> str:
        if config.provider == "mistral":
            return f"mistral:{config.name or self._settings.mistral_model}"
        if config.provider == "openai":
            return f"openai:{config.name or self._llm.openai_model or 'unnamed'}"
        return config.offline.identity

    def choose(self, config: ModelConfig) -> ChosenModel:
        """The model for ``config``; raises :class:`ModelUnavailableError` when it cannot be used."""
        if config.provider != "offline":
            return ChosenModel(self._remote_factory(config, self._settings), self.identity(config))
        return ChosenModel(OfflineDriveThruModel(behaviour=config.offline), self.identity(config))

    def default_chat_config(self) -> ModelConfig:
        """The chat API's model: settings.chat_model, where 'auto' means mistral when a key is set,
        else openai when an OpenAI-compatible endpoint and ``OPENAI_MODEL`` are, else offline."""
        choice = self._settings.chat_model
        if choice == "auto":
            key = self._settings.mistral_api_key
            if key is not None and key.get_secret_value():
                choice = "mistral"
            elif self._llm.resolve("auto") != "offline" and self._llm.openai_model:
                choice = "openai"
            else:
                choice = "offline"
        name = {"mistral": self._settings.mistral_model, "openai": self._llm.openai_model}.get(choice)
        return ModelConfig(provider=choice, name=name, offline=self._settings.chat_offline)
