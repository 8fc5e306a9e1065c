"""LangChain chat models (tool calling, for the agent) built from an :class:`LlmConfig`.

``mistral`` → ``ChatMistralAI``; ``openai`` → ``ChatOpenAI(base_url=…)``, which speaks to any
OpenAI-compatible endpoint. Both get the configuration's timeout and retries explicitly (their
own defaults retry for tens of seconds). The OpenAI SDK's retries honour ``Retry-After`` on 429
and back off on 5xx and connection errors; ``ChatMistralAI`` retries only timeouts and connection
errors (a 429 or 5xx fails the call at once: the agent graph's own attempts are what repeat it).
Both count their requests (see :mod:`shared.llm.request_count`). ``offline`` has no LangChain model
here: the agent brings its own deterministic one.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from shared.llm.config import KEYLESS_PLACEHOLDER, LlmConfig, LlmNotConfigured
from shared.llm.request_count import count_requests_of, counted_async_client

if TYPE_CHECKING:  # LangChain loads only when a model is built (the CLI starts without it)
    from langchain_core.language_models import BaseChatModel


def chat_model(config: LlmConfig) -> BaseChatModel:
    """The LangChain chat model for ``config``; :class:`LlmNotConfigured` for ``offline``."""
    if config.provider == "mistral":
        from langchain_mistralai import ChatMistralAI

        if config.api_key is None:
            raise LlmNotConfigured("provider 'mistral' needs MISTRAL_API_KEY")
        model = ChatMistralAI(
            model_name=config.model,
            temperature=config.temperature,
            max_tokens=config.max_output_tokens,
            timeout=math.ceil(config.timeout_s),
            max_retries=config.max_retries,
            api_key=config.api_key,
            base_url=config.base_url,
        )
        count_requests_of(model.async_client)
        return model
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
