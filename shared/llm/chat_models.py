"""LangChain chat models (tool calling, for the agent) built from an :class:`LlmConfig`.

``mistral`` → ``ChatMistralAI``; ``openai`` → ``ChatOpenAI(base_url=…)``, which speaks to any
OpenAI-compatible endpoint. Both get the configuration's timeout and retries explicitly (their
own defaults retry for tens of seconds). The OpenAI SDK's retries honour ``Retry-After`` on 429
and back off on 5xx and connection errors; ``ChatMistralAI``'s own retry covers only timeouts and
connection errors, so it gets one attempt and a :class:`RetryingAsyncClient` that re-sends the same
way as the OpenAI SDK (429, 5xx, timeouts; see :mod:`shared.llm.retrying_client`).
Both count their requests (see :mod:`shared.llm.request_count`). ``offline`` has no LangChain model
here: the agent brings its own deterministic one.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from shared.llm.config import KEYLESS_PLACEHOLDER, LlmConfig, LlmNotConfigured
from shared.llm.request_count import count_requests_of, counted_async_client
from shared.llm.retrying_client import RetryingAsyncClient

if TYPE_CHECKING:  # LangChain loads only when a model is built (the CLI starts without it)
    from langchain_core.language_models import BaseChatModel


def chat_model(config: LlmConfig) -> BaseChatModel:
    """The LangChain chat model for ``config``; :class:`LlmNotConfigured` for ``offline``."""
    if config.provider == "mistral":
        from langchain_mistralai import ChatMistralAI

        if config.api_key is None:
            raise LlmNotConfigured("provider 'mistral' needs MISTRAL_API_KEY")
        timeout = math.ceil(config.timeout_s)
        client = RetryingAsyncClient(
            config,
            base_url=config.base_url,
            headers={
                "Content-Type": "application/json",
                "Accept": "application/json",
                "Authorization": f"Bearer {config.api_key.get_secret_value()}",
            },
            timeout=timeout,
        )
        count_requests_of(client)
        return ChatMistralAI(
            model_name=config.model,
            temperature=config.temperature,
            max_tokens=config.max_output_tokens,
            timeout=timeout,
            max_retries=1,  # LangChain's retry: stop after the first attempt; the client re-sends
            api_key=config.api_key,
            base_url=config.base_url,
            async_client=client,
        )
    if config.provider == "openai":
        from langchain_openai import ChatOpenAI
        from pydantic import SecretStr

        return ChatOpenAI(
            model=config.model,
            temperature=config.temperature,
            # max_tokens, which every OpenAI-compatible server reads (LangChain would send only
            # max_completion_tokens, which llama.cpp's server, among others, ignores)
            extra_body={"max_tokens": config.max_output_tokens},
            timeout=config.timeout_s,
            max_retries=config.max_retries,
            api_key=config.api_key or SecretStr(KEYLESS_PLACEHOLDER),
            base_url=config.base_url,
            http_async_client=counted_async_client(),
        )
    raise LlmNotConfigured("the offline provider has no LangChain chat model: the caller brings its own")
