"""One chat-completions request over HTTP, with bounded retries.

- 429 and 503: wait what ``Retry-After`` says (seconds or an HTTP date) when it is at most
  ``max_retry_after_s``; a longer wait is not honoured: the call gives up at once, saying so.
  Without the header they back off like other failures.
- Other 5xx, a timeout, a refused or dropped connection, a body that is not JSON: exponential
  backoff (``backoff_s`` doubling, at most 8 s, ±20 % jitter so that workers do not retry in
  step), at most ``max_retries`` re-sends.
- A request that carries a ``response_format`` and gets 400, 422, 500 or 501 is *refused*
  (:class:`FormatRefused`) without retrying: llama.cpp's server answers 500 to ``json_schema``;
  the caller then tries a simpler format.
- Other 4xx (401, 403, 404, …) are not retried: :class:`ProviderUnavailable` with the body.
"""

from __future__ import annotations

import asyncio
import json
import random
from dataclasses import dataclass
from typing import Any

import aiohttp

from shared.http.retry_after import RETRY_AFTER_STATUSES, retry_after_s
from shared.llm.config import LlmConfig

MAX_BACKOFF_S = 8.0
REFUSAL_STATUSES = frozenset({400, 422, 500, 501})
BODY_EXCERPT = 300


class ProviderUnavailable(RuntimeError):
    """The endpoint did not answer usefully within the retries allowed; the message says how."""

    def __init__(self, message: str, retries: int, waited_s: float, requests: int) -> None:
        super().__init__(message)
        self.retries = retries
        self.waited_s = waited_s
        self.requests = requests


class FormatRefused(RuntimeError):
    """The endpoint refused the request's ``response_format`` (status and body excerpt)."""

    def __init__(self, message: str, retries: int, waited_s: float, requests: int) -> None:
        super().__init__(message)
        self.retries = retries
        self.waited_s = waited_s
        self.requests = requests


@dataclass(frozen=True)
class ChatReply:
    """The decoded JSON body of a 200 reply, with how many re-sends it took."""

    body: dict[str, Any]
    retries: int
    waited_s: float
    requests: int


def backoff_s(config: LlmConfig, retry: int) -> float:
    """Wait before re-send number ``retry`` (0-based): ``backoff_s * 2**retry``, at most 8 s."""
    return float(min(MAX_BACKOFF_S, config.backoff_s * (2**retry)))


def _excerpt(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= BODY_EXCERPT else text[:BODY_EXCERPT] + "…"


@dataclass
class _Attempts:
    """Re-sends so far and time waited, and whether another is allowed."""

    config: LlmConfig
    retries: int = 0
    waited_s: float = 0.0
    requests: int = 0

    def give_up(self, reason: str) -> ProviderUnavailable:
        where = f"{self.config.identity} at {self.config.base_url}"
        return ProviderUnavailable(
            f"{where}: {reason} (after {self.retries} retries)", self.retries, self.waited_s, self.requests
        )

    async def wait(self, reason: str, delay: float | None = None) -> None:
        """Sleep before the next re-send, or raise when none is left (or the wait is too long)."""
        if self.retries >= self.config.max_retries:
            raise self.give_up(reason)
        if delay is not None and delay > self.config.max_retry_after_s:
            allowed = self.config.max_retry_after_s
            raise self.give_up(
                f"{reason}; asked to retry after {delay:g} s, more than the {allowed:g} s allowed "
                "(LLM_MAX_RETRY_AFTER_S)"
            )
        pause = backoff_s(self.config, self.retries) * random.uniform(0.8, 1.2) if delay is None else delay
        self.retries += 1
        self.waited_s += pause
        await asyncio.sleep(pause)


def _headers(config: LlmConfig) -> dict[str, str]:
    headers = {"Content-Type": "application/json"}
    if config.api_key is not None:
        headers["Authorization"] = f"Bearer {config.api_key.get_secret_value()}"
    return headers


async def post_chat(session: aiohttp.ClientSession, config: LlmConfig, body: dict[str, Any]) -> ChatReply:
    """POST ``body`` to ``{base_url}/chat/completions``; see the module docstring for the rules."""
    url = f"{config.base_url.rstrip('/')}/chat/completions"
    timeout = aiohttp.ClientTimeout(total=config.timeout_s)
    attempts = _Attempts(config)
    while True:
        attempts.requests += 1
        try:
            async with session.post(url, json=body, headers=_headers(config), timeout=timeout) as response:
                text = await response.text()
                status = response.status
                header = response.headers.get("Retry-After")
        except TimeoutError:
            await attempts.wait(f"no reply within {config.timeout_s:g} s (LLM_TIMEOUT_S)")
            continue
        except aiohttp.ClientError as exc:
            await attempts.wait(f"connection failed: {type(exc).__name__}: {exc}")
            continue
        if status == 200:
            try:
                decoded = json.loads(text)
            except ValueError:
                await attempts.wait(f"HTTP 200 with a body that is not JSON: {_excerpt(text)!r}")
                continue
            if isinstance(decoded, dict):
                return ChatReply(decoded, attempts.retries, attempts.waited_s, attempts.requests)
            await attempts.wait("HTTP 200 with a JSON body that is not an object")
            continue
        reason = f"HTTP {status}: {_excerpt(text)}"
        if "response_format" in body and status in REFUSAL_STATUSES:
            raise FormatRefused(reason, attempts.retries, attempts.waited_s, attempts.requests)
        if status in RETRY_AFTER_STATUSES:
            await attempts.wait(reason, retry_after_s(header))
        elif status >= 500 or status == 408:
            await attempts.wait(reason)
        else:
            raise attempts.give_up(reason)
