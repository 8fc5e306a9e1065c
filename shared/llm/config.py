"""Which LLM to call and how: the provider configuration every LLM path is built from.

Providers:

- ``mistral``: Mistral's API (``MISTRAL_API_KEY``; ``MISTRAL_BASE_URL`` for a proxy).
- ``openai``: any OpenAI-compatible chat-completions endpoint: OpenAI itself, vLLM, Ollama, a
  LiteLLM proxy, llama.cpp's server. ``OPENAI_BASE_URL`` and ``OPENAI_API_KEY`` are the variables
  the OpenAI SDK reads; a local server needs only the URL (a placeholder key is sent).
- ``offline``: no model is called. The agent uses its deterministic offline model; a judge
  records "skipped" (value None); the answerer is extractive.

``auto`` (the default everywhere) picks ``mistral`` when ``MISTRAL_API_KEY`` is set, else ``openai``
when ``OPENAI_BASE_URL`` or ``OPENAI_API_KEY`` is, else ``offline``. The ``openai`` provider has no
default model name: name it per use (``--set model.name=…``, a judge's ``judge_model``,
``JUDGE_MODEL``) or once in ``OPENAI_MODEL``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, SecretStr
from pydantic_settings import SettingsConfigDict

from shared.retired_settings import RefusesRetiredNames

Provider = Literal["mistral", "openai", "offline"]
ProviderChoice = Literal["auto", "mistral", "openai", "offline"]
StructuredOutput = Literal["auto", "json_schema", "json_object", "off"]
"""How a structured call asks for JSON (see :mod:`shared.llm.response_formats`): ``auto`` tries
``json_schema``, then ``json_object`` with the schema, then the prompt alone; the others use one way."""

MISTRAL_BASE_URL = "https://api.mistral.ai/v1"
OPENAI_BASE_URL = "https://api.openai.com/v1"
DEFAULT_MISTRAL_MODEL = "mistral-small-latest"
KEYLESS_PLACEHOLDER = "not-needed"
"""Sent as the key to an OpenAI-compatible server that needs none (vLLM, Ollama, llama.cpp)."""


def _present(secret: SecretStr | None) -> bool:
    return secret is not None and bool(secret.get_secret_value())


class LlmNotConfigured(ValueError):
    """The requested provider cannot be used here (no key, no URL, no model name): says what to set."""


class LlmSettings(RefusesRetiredNames):
    """The LLM variables, read from the environment (and ``.env``) wherever a model is built."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    mistral_api_key: SecretStr | None = Field(default=None, description="MISTRAL_API_KEY")
    mistral_base_url: str = Field(default=MISTRAL_BASE_URL, description="MISTRAL_BASE_URL")
    openai_api_key: SecretStr | None = Field(default=None, description="OPENAI_API_KEY")
    openai_base_url: str | None = Field(
        default=None, description="OPENAI_BASE_URL, e.g. http://127.0.0.1:8000/v1 (default: OpenAI's)"
    )
    openai_model: str | None = Field(default=None, description="OPENAI_MODEL: default model of 'openai'")
    judge_provider: ProviderChoice = Field(default="auto", description="JUDGE_PROVIDER")
    judge_model: str | None = Field(default=None, description="JUDGE_MODEL: default judge model name")
    llm_timeout_s: float = Field(default=60.0, gt=0, description="LLM_TIMEOUT_S: one HTTP request")
    llm_max_retries: int = Field(
        default=3, ge=0, le=10, description="LLM_MAX_RETRIES: re-sends after 429/5xx/timeouts"
    )
    llm_max_parse_attempts: int = Field(
        default=2, ge=1, le=5, description="LLM_MAX_PARSE_ATTEMPTS: replies asked before 'not measured'"
    )
    llm_max_retry_after_s: float = Field(
        default=30.0, ge=0, description="LLM_MAX_RETRY_AFTER_S: longest Retry-After honoured"
    )
    llm_backoff_s: float = Field(
        default=0.5, ge=0, le=10, description="LLM_BACKOFF_S: first backoff, doubling per retry (max 8 s)"
    )
    llm_structured_output: StructuredOutput = Field(
        default="auto",
        description="LLM_STRUCTURED_OUTPUT: how judges ask for JSON: auto (json_schema, then json_object "
        "with the schema, then the prompt alone, remembering per endpoint and model what worked), or only "
        "json_schema, only json_object, or off (no response_format: the prompt alone)",
    )
    llm_max_output_tokens: int = Field(
        default=1024,
        ge=16,
        le=65536,
        description="LLM_MAX_OUTPUT_TOKENS: the longest reply asked for (a model that never stops, such as "
        "a base model, otherwise writes until its context is full)",
    )

    def resolve(self, choice: ProviderChoice | None) -> Provider:
        """``auto`` (or None) → mistral with a Mistral key, openai with an OpenAI URL or key, else offline."""
        if choice == "mistral" or choice == "openai" or choice == "offline":
            return choice
        if _present(self.mistral_api_key):
            return "mistral"
        if self.openai_base_url or _present(self.openai_api_key):
            return "openai"
        return "offline"


class LlmConfig(BaseModel, frozen=True):
    """One model on one endpoint, with the limits of every call made to it."""

    provider: Provider
    model: str = Field(min_length=1, description="Model name as the endpoint knows it")
    base_url: str = Field(default="", description="Chat-completions base URL, ending before /chat")
    api_key: SecretStr | None = Field(default=None, repr=False)
    temperature: float = Field(default=0.0, ge=0, le=2)
    timeout_s: float = Field(default=60.0, gt=0, description="One HTTP request, reply included")
    max_retries: int = Field(default=3, ge=0, le=10, description="Re-sends after 429/5xx/timeouts")
    max_parse_attempts: int = Field(default=2, ge=1, le=5, description="Replies asked before giving up")
    max_retry_after_s: float = Field(default=30.0, ge=0, description="Longest Retry-After honoured")
    backoff_s: float = Field(default=0.5, ge=0, description="First backoff; doubles each retry (max 8 s)")
    max_output_tokens: int = Field(default=1024, ge=16, description="Longest reply asked for (max_tokens)")
    structured_output: StructuredOutput = Field(
        default="auto", description="How a structured call asks for JSON (LLM_STRUCTURED_OUTPUT)"
    )

    @property
    def identity(self) -> str:
        """``provider:model``, e.g. ``openai:qwen2.5-7b-instruct``."""
        return f"{self.provider}:{self.model}"

    @property
    def endpoint(self) -> str:
        """The endpoint and model a remembered response format belongs to."""
        return f"{self.base_url.rstrip('/')}#{self.model}"


def llm_config(
    provider: ProviderChoice | None,
    model: str | None,
    *,
    temperature: float = 0.0,
    settings: LlmSettings | None = None,
    default_mistral_model: str = DEFAULT_MISTRAL_MODEL,
) -> LlmConfig:
    """The configuration for ``provider`` (``auto``/None resolved) and ``model`` (None: the provider's
    default). Raises :class:`LlmNotConfigured` when an explicitly requested provider lacks its key,
    URL or a model name; ``offline`` never raises."""
    env = settings or LlmSettings()
    chosen = env.resolve(provider)
    limits = {
        "temperature": temperature,
        "timeout_s": env.llm_timeout_s,
        "max_retries": env.llm_max_retries,
        "max_parse_attempts": env.llm_max_parse_attempts,
        "max_retry_after_s": env.llm_max_retry_after_s,
        "backoff_s": env.llm_backoff_s,
        "max_output_tokens": env.llm_max_output_tokens,
        "structured_output": env.llm_structured_output,
    }
    if chosen == "offline":
        return LlmConfig(provider="offline", model=model or "offline", **limits)
    if chosen == "mistral":
        if not _present(env.mistral_api_key):
            raise LlmNotConfigured("provider 'mistral' needs MISTRAL_API_KEY (or choose provider 'openai')")
        return LlmConfig(
            provider="mistral",
            model=model or default_mistral_model,
            base_url=env.mistral_base_url,
            api_key=env.mistral_api_key,
            **limits,
        )
    if not (env.openai_base_url or _present(env.openai_api_key)):
        raise LlmNotConfigured(
            "provider 'openai' needs OPENAI_BASE_URL (any OpenAI-compatible server) or OPENAI_API_KEY"
        )
    name = model or env.openai_model
    if not name:
        raise LlmNotConfigured(
            "provider 'openai' needs a model name: set OPENAI_MODEL, or name it for this use "
            "(--set model.name=…, the judge's judge_model argument, JUDGE_MODEL)"
        )
    key = env.openai_api_key if _present(env.openai_api_key) else SecretStr(KEYLESS_PLACEHOLDER)
    return LlmConfig(
        provider="openai", model=name, base_url=env.openai_base_url or OPENAI_BASE_URL, api_key=key, **limits
    )
