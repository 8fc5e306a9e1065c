"""search-proxy settings (environment variables, see each field)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, model_validator

from shared.llm import ProviderChoice
from shared.settings import CommonSettings
from shared.shipped_data import SEARCH

DEFAULT_CORPUS = SEARCH / "corpus-v1.json"


class SearchProxySettings(CommonSettings):
    search_corpus_path: Path = Field(default=DEFAULT_CORPUS, description="SEARCH_CORPUS_PATH")
    search_backend: Literal["corpus", "http"] = Field(default="corpus", description="Default backend")
    search_upstream_url: str | None = Field(default=None, description="SEARCH_UPSTREAM_URL")
    search_upstream_key: SecretStr | None = Field(default=None, description="SEARCH_UPSTREAM_KEY")
    search_upstream_workspace: str = Field(default="", description="SEARCH_UPSTREAM_WORKSPACE")
    search_upstream_timeout_s: float = Field(default=10.0, gt=0)
    search_upstream_retries: int = Field(default=3, ge=0)
    search_cache_ttl_s: float = Field(default=300.0, ge=0, description="0 disables the result cache")
    search_cache_max_entries: int = Field(default=1024, ge=0)
    search_degrade: float = Field(
        default=0.0, ge=0, le=1, description="FAULT INJECTION default for requests that set none"
    )
    search_request_timeout_s: float = Field(default=30.0, gt=0)
    mistral_api_key: SecretStr | None = Field(
        default=None, description="MISTRAL_API_KEY: answers are written by Mistral (else extractive)"
    )
    answer_provider: ProviderChoice = Field(
        default="auto",
        description="ANSWER_PROVIDER: the LLM answerer's provider; 'auto' = mistral with MISTRAL_API_KEY, "
        "openai with OPENAI_BASE_URL/OPENAI_API_KEY, else extractive only",
    )
    answer_model: str | None = Field(
        default=None,
        description="ANSWER_MODEL (None: mistral-small-latest for mistral, OPENAI_MODEL for openai)",
    )
    answer_timeout_s: int = Field(default=30, ge=1, description="Per-request timeout of an LLM call")
    answer_max_retries: int = Field(default=2, ge=0)

    @model_validator(mode="after")
    def _http_backend_needs_upstream(self) -> SearchProxySettings:
        if self.search_backend == "http" and not (self.search_upstream_url and self.search_upstream_key):
            raise ValueError("SEARCH_BACKEND=http needs SEARCH_UPSTREAM_URL and SEARCH_UPSTREAM_KEY")
        return self
