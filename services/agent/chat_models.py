"""Choosing the chat model for a request from its :class:`ModelConfig`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from langchain_core.language_models import BaseChatModel

from services.agent.offline_model import OfflineDriveThruModel
from services.agent.settings import AgentSettings
from shared.contracts.agent_messages import ModelConfig


class ModelUnavailableError(RuntimeError):
    """The requested model cannot be used in this deployment (e.g. no API key)."""


@dataclass(frozen=True)
class ChosenModel:
    model: BaseChatModel
    identity: str  # e.g. "offline:ask" or "mistral:mistral-small-latest"


MistralFactory = Callable[[ModelConfig, AgentSettings], BaseChatModel]


def make_mistral(config: ModelConfig, settings: AgentSettings) -> BaseChatModel:
    """``ChatMistralAI`` with explicit timeout and retries (its defaults retry for ~20 s)."""
    if settings.mistral_api_key is None or not settings.mistral_api_key.get_secret_value():
        raise ModelUnavailableError(
            "model provider 'mistral' needs MISTRAL_API_KEY: set it for the agent service, "
            "or request provider 'offline'"
        )
    from langchain_mistralai import ChatMistralAI

    return ChatMistralAI(
        model_name=config.name or settings.mistral_model,
        temperature=config.temperature,
        timeout=settings.mistral_timeout_s,
        max_retries=settings.mistral_max_retries,
        api_key=settings.mistral_api_key,
    )


class ModelFactory:
    """Builds the model for a request. ``mistral_factory`` is replaceable (tests use a fake)."""

    def __init__(self, settings: AgentSettings, mistral_factory: MistralFactory = make_mistral) -> None:
        self._settings = settings
        self._mistral_factory = mistral_factory

    def identity(self, config: ModelConfig) -> str:
        if config.provider == "mistral":
            return f"mistral:{config.name or self._settings.mistral_model}"
        return config.offline.identity

    def choose(self, config: ModelConfig) -> ChosenModel:
        """The model for ``config``; raises :class:`ModelUnavailableError` when it cannot be used."""
        if config.provider == "mistral":
            return ChosenModel(self._mistral_factory(config, self._settings), self.identity(config))
        return ChosenModel(OfflineDriveThruModel(behaviour=config.offline), self.identity(config))

    def default_chat_config(self) -> ModelConfig:
        """The chat API's model: settings.chat_model, where 'auto' means mistral iff a key is set."""
        choice = self._settings.chat_model
        if choice == "auto":
            key = self._settings.mistral_api_key
            choice = "mistral" if key is not None and key.get_secret_value() else "offline"
        name = self._settings.mistral_model if choice == "mistral" else None
        return ModelConfig(provider=choice, name=name, offline=self._settings.chat_offline)
