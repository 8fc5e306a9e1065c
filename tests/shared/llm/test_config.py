from __future__ import annotations

import time

import pytest

from shared.http.retry_after import retry_after_s
from shared.llm import LlmConfig, LlmNotConfigured, LlmSettings, llm_config
from shared.llm.config import KEYLESS_PLACEHOLDER
from shared.llm.retry_budget import backoff_s

pytestmark = pytest.mark.unit

ENV = (
    "MISTRAL_API_KEY",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OPENAI_MODEL",
    "JUDGE_PROVIDER",
    "JUDGE_MODEL",
)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ENV:
        monkeypatch.delenv(name, raising=False)


def test_auto_is_offline_without_keys_then_mistral_then_openai(monkeypatch: pytest.MonkeyPatch) -> None:
    assert llm_config(None, None).provider == "offline"
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8000/v1")
    assert llm_config("auto", "qwen").identity == "openai:qwen"
    monkeypatch.setenv("MISTRAL_API_KEY", "k")
    chosen = llm_config(None, None)
    assert (chosen.provider, chosen.model, chosen.base_url) == (
        "mistral",
        "mistral-small-latest",
        "https://api.mistral.ai/v1",
    )


def test_openai_compatible_endpoint_without_a_key_sends_a_placeholder(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:11434/v1")
    monkeypatch.setenv("OPENAI_MODEL", "llama3.2")
    config = llm_config("openai", None, temperature=0.3)
    assert (config.base_url, config.model, config.temperature) == (
        "http://127.0.0.1:11434/v1",
        "llama3.2",
        0.3,
    )
    assert config.api_key is not None and config.api_key.get_secret_value() == KEYLESS_PLACEHOLDER
    assert "sk-" not in repr(config)


def test_explicit_providers_say_what_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(LlmNotConfigured, match="MISTRAL_API_KEY"):
        llm_config("mistral", None)
    with pytest.raises(LlmNotConfigured, match="OPENAI_BASE_URL"):
        llm_config("openai", "gpt-4o-mini")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with pytest.raises(LlmNotConfigured, match="needs a model name"):
        llm_config("openai", None)
    hosted = llm_config("openai", "gpt-4o-mini")
    assert hosted.base_url == "https://api.openai.com/v1"
    assert llm_config("offline", None).provider == "offline"


def test_limits_come_from_the_settings() -> None:
    settings = LlmSettings(
        openai_base_url="http://h/v1", llm_timeout_s=5, llm_max_retries=1, llm_max_parse_attempts=3
    )
    config = llm_config("openai", "m", settings=settings)
    assert (config.timeout_s, config.max_retries, config.max_parse_attempts) == (5, 1, 3)


def test_retry_after_reads_seconds_and_http_dates() -> None:
    assert retry_after_s(None) is None and retry_after_s("soon") is None
    assert retry_after_s("3") == 3 and retry_after_s("0.25") == 0.25 and retry_after_s("-2") == 0
    now = time.time()
    date = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(now + 10))
    assert retry_after_s(date, now=now) == pytest.approx(10, abs=1)


def test_backoff_doubles_up_to_a_cap() -> None:
    config = LlmConfig(provider="openai", model="m", backoff_s=0.5)
    assert [backoff_s(config, n) for n in range(6)] == [0.5, 1, 2, 4, 8, 8]
