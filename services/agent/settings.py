"""Configuration of the agent service (environment variables, ``.env``)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr

from shared.settings import CommonSettings
from shared.shipped_data import MENU
from yardstick.api.agent_messages import OfflineBehaviour
from yardstick.api.projects import DEFAULT_PROJECT, PROJECT_ID_PATTERN

DEFAULT_MENU_PATH = MENU


class AgentSettings(CommonSettings):
    mistral_api_key: SecretStr | None = Field(
        default=None, description="MISTRAL_API_KEY (no built-in value); the mistral model needs it"
    )
    mistral_model: str = Field(default="mistral-small-latest")
    mistral_timeout_s: int = Field(default=30, ge=1, description="Per-request timeout of a Mistral call")
    mistral_max_retries: int = Field(default=2, ge=0)
    langfuse_public_key: SecretStr | None = Field(default=None, description="Opt-in prompt management")
    langfuse_secret_key: SecretStr | None = Field(default=None)
    langfuse_host: str | None = Field(
        default=None, description="LANGFUSE_HOST, e.g. https://cloud.langfuse.com"
    )
    project: str = Field(
        default=DEFAULT_PROJECT,
        pattern=PROJECT_ID_PATTERN,
        description="YARDSTICK_PROJECT: the project the chat API's prompt comes from and its traffic goes to",
        validation_alias="YARDSTICK_PROJECT",
    )
    prompt_cache_ttl_s: float = Field(default=60.0, ge=0)
    prompt_registry: bool = Field(
        default=True, description="Look named prompts up in Yardstick's registry (this Postgres)"
    )
    menu_path: Path = Field(default=DEFAULT_MENU_PATH, description="Menu JSON (the drive-thru Menu shape)")
    chat_model: Literal["auto", "offline", "mistral", "openai"] = Field(
        default="auto",
        description="Model of the chat API; 'auto' = mistral when a key is set, else openai when "
        "OPENAI_BASE_URL (or OPENAI_API_KEY) and OPENAI_MODEL are set, else offline",
    )
    chat_offline: OfflineBehaviour = Field(
        default_factory=OfflineBehaviour,
        description="The offline model's behaviour in the chat API, JSON in CHAT_OFFLINE",
        examples=['{"ambiguous_policy": "guess_first", "simulate_silent_drift": true}'],
    )
    invoke_max_workers: int = Field(
        default=1024,
        ge=1,
        description="agent.invoke requests handled at once (coroutines: a model call awaits its "
        "provider, so hundreds wait cheaply; CPU, not this, bounds an offline agent)",
    )
    invoke_timeout_s: float = Field(default=60.0, gt=0, description="Upper bound of one agent.invoke run")
    turn_timeout_s: float = Field(default=60.0, gt=0, description="Upper bound of one chat turn")
    chat_concurrent_turns: int = Field(
        default=32, ge=1, description="Chat turns served at once (each holds a Postgres connection)"
    )
    recursion_limit: int = Field(default=25, ge=5, description="Graph steps allowed per turn")
    otel_service_name: str = Field(
        default="drive-thru",
        min_length=1,
        max_length=200,
        validation_alias="OTEL_SERVICE_NAME",
        description="The application the chat turns' traces belong to (their resource service.name)",
    )
    otlp_endpoint: str | None = Field(
        default=None,
        validation_alias="OTEL_EXPORTER_OTLP_ENDPOINT",
        description="OTLP/HTTP base URL the chat turns' traces go to (``/v1/traces`` is appended), e.g. "
        "Yardstick's ingest service; unset: no traces are exported",
    )
    otlp_headers: SecretStr | None = Field(
        default=None,
        validation_alias="OTEL_EXPORTER_OTLP_HEADERS",
        description="Headers of the exports, ``Authorization=Bearer%20<ingest key>`` (W3C baggage form)",
    )
    otlp_export_timeout_s: float = Field(
        default=10.0,
        gt=0,
        description="How long one batch of traces is retried before it goes to the span outbox (Postgres)",
    )
    span_outbox_retry_max_s: float = Field(
        default=30.0,
        gt=0,
        description="Longest wait between re-sends of the span outbox while the ingest refuses them",
    )
