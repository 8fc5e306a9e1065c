"""Everything an agent invocation needs, built once per process from the settings."""

from __future__ import annotations

from dataclasses import dataclass

from services.agent.chat_models import ModelFactory
from services.agent.domain import Menu
from services.agent.prompt import PromptSource
from services.agent.settings import AgentSettings


@dataclass(frozen=True)
class AgentRuntime:
    settings: AgentSettings
    menu: Menu
    prompts: PromptSource
    models: ModelFactory

    @classmethod
    def from_settings(cls, settings: AgentSettings, models: ModelFactory | None = None) -> AgentRuntime:
        public = settings.langfuse_public_key
        secret = settings.langfuse_secret_key
        return cls(
            settings=settings,
            menu=Menu.from_json_file(settings.menu_path),
            prompts=PromptSource(
                public_key=public.get_secret_value() if public else None,
                secret_key=secret.get_secret_value() if secret else None,
                host=settings.langfuse_host,
                ttl_s=settings.prompt_cache_ttl_s,
                database_url=settings.database_url if settings.prompt_registry else None,
            ),
            models=models or ModelFactory(settings),
        )
