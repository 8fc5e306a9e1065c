"""The ``httpx`` client under ``ChatMistralAI``: it re-sends a model request the way the OpenAI SDK
does under ``ChatOpenAI``, so both tool-calling providers meet a bad day alike.

- 429 and 503 wait what ``Retry-After`` says when it is at most ``max_retry_after_s``; a longer
  wait is not honoured: the error response goes back to the caller at once.
- Other 5xx, 408, a timeout, a refused or dropped connection: exponential backoff.
- At most ``max_retries`` re-sends; :class:`~shared.llm.retry_budget.RetryBudget` (the same rule as
  the structured calls' transport) decides, then the last response or error is the caller's.

Each attempt goes through :meth:`httpx.AsyncClient.send`, so the request-counting hooks
(:mod:`shared.llm.request_count`) see every one, as they see the OpenAI SDK's.
"""

from __future__ import annotations

import logging
from typing import Any

import httpx
from httpx._client import USE_CLIENT_DEFAULT, UseClientDefault
from httpx._types import AuthTypes

from shared.http.retry_after import RETRY_AFTER_STATUSES, retry_after_s
from shared.llm.config import LlmConfig
from shared.llm.retry_budget import RetryBudget

log = logging.getLogger(__name__)

RESENT_ERRORS = (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError)
"""Failures before a response that are worth sending again (not, e.g., an unsupported URL)."""


def worth_resending(status: int) -> bool:
    """A status a later attempt may not get: 408, 429 and every 5xx."""
    return status in RETRY_AFTER_STATUSES or status >= 500 or status == 408


class RetryingAsyncClient(httpx.AsyncClient):
    """An ``httpx.AsyncClient`` whose :meth:`send` re-sends per ``config`` (see the module docstring)."""

    def __init__(self, config: LlmConfig, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._config = config

    async def send(
        self,
        request: httpx.Request,
        *,
        stream: bool = False,
        auth: AuthTypes | UseClientDefault | None = USE_CLIENT_DEFAULT,
        follow_redirects: bool | UseClientDefault = USE_CLIENT_DEFAULT,
    ) -> httpx.Response:
        budget = RetryBudget(self._config)
        while True:
            try:
                response = await super().send(
                    request, stream=stream, auth=auth, follow_redirects=follow_redirects
                )
            except RESENT_ERRORS as exc:
                if budget.refusal() is not None:
                    raise
                log.warning("%s: %s; sending again", self._config.identity, type(exc).__name__)
                await budget.sleep()
                continue
            if not worth_resending(response.status_code):
                return response
            header = response.headers.get("Retry-After")
            delay = retry_after_s(header) if response.status_code in RETRY_AFTER_STATUSES else None
            if budget.refusal(delay) is not None:
                return response
            await response.aclose()
            log.warning("%s: HTTP %d; sending again", self._config.identity, response.status_code)
            await budget.sleep(delay)
