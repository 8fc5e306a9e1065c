"""One chat-completions request over HTTP, with bounded retries.

- 429 and 503: wait what ``Retry-After`` says (seconds or an HTTP date) when it is at most
  ``max_retry_after_s``; a longer wait is not honoured: the call gives up at once, saying so.
  Without the header they back off like other failures.
- Other 5xx, a timeout, a refused or dropped connection, a body that is not JSON: exponential
  backoff, at most ``max_retries`` re-sends (:class:`~shared.llm.retry_budget.RetryBudget`).
- A request that carries a ``response_format`` is *refused* (:class:`FormatRefused`, not retried;
  the caller then tries a simpler format) by a 501, or a 400, 422 or 500 whose body names the
  format or says a parameter is unsupported (:func:`names_the_format`): llama-cpp-python's server
  answers ``json_schema`` with a 500 naming ``response_format``. A 500 that names nothing of the
  kind is an outage like any other 5xx, retried below.
- Other 4xx (401, 403, 404, …) are not retried: :class:`ProviderUnavailable` with the body.

Inside an eval worker every request goes through the worker's provider gate
(``shared/llm/provider_gate.py``): a throttle (429, or 503 with ``Retry-After``) is waited out there,
shared with every worker calling the same provider, and not counted as a retry.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

import aiohttp

from shared.http.retry_after import RETRY_AFTER_STATUSES, is_throttle, retry_after_s
from shared.llm.config import LlmConfig
from shared.llm.provider_gate import ProviderThrottled, WaitedTooLong, current_gate
from shared.llm.retry_budget import RetryBudget

REFUSAL_STATUSES = frozenset({400, 422, 500, 501})
BODY_EXCERPT = 300
_FORMAT_WORDS = re.compile(
    r"response_format|json_schema|json_object|schema|grammar|structured output|not supported|unsupported"
    r"|not implemented|unknown (?:field|parameter|argument)|unrecognized|extra (?:inputs|fields)"
    r"|not permitted",
    re.IGNORECASE,
)


def names_the_format(status: int, text: str) -> bool:
    """Whether a ``status`` answer with body ``text`` refuses the request's ``response_format``."""
    return status == 501 or (status in REFUSAL_STATUSES and _FORMAT_WORDS.search(text) is not None)


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


def _excerpt(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= BODY_EXCERPT else text[:BODY_EXCERPT] + "…"


@dataclass
class _Attempts(RetryBudget):
    """The retry budget of one call, with the requests it sent."""

    requests: int = 0

    def give_up(self, reason: str) -> ProviderUnavailable:
        where = f"{self.config.identity} at {self.config.base_url}"
        return ProviderUnavailable(
            f"{where}: {reason} (after {self.retries} retries)", self.retries, self.waited_s, self.requests
        )

    async def wait(self, reason: str, delay: float | None = None) -> None:
        """Sleep before the next re-send, or raise when none is left (or the wait is too long)."""
        refusal = self.refusal(delay)
        if refusal is not None:
            raise self.give_up(reason + refusal)
        await self.sleep(delay)


def _headers(config: LlmConfig) -> dict[str, str]:
    headers = {"Content-Type": "application/json"}
    if config.api_key is not None:
        headers["Authorization"] = f"Bearer {config.api_key.get_secret_value()}"
    return headers


def provider_identity(config: LlmConfig) -> str:
    """Whose limit a request counts against: the endpoint, the model, and which key (a digest)."""
    key = config.api_key.get_secret_value() if config.api_key is not None else ""
    return f"llm {config.endpoint} key {hashlib.sha256(key.encode()).hexdigest()[:12]}"


async def _send(
    session: aiohttp.ClientSession, url: str, config: LlmConfig, body: dict[str, Any], gated: bool
) -> tuple[int, str, str | None]:
    """One request: status, body text and ``Retry-After``; a throttle raises when a gate waits it out."""
    timeout = aiohttp.ClientTimeout(total=config.timeout_s)
    async with session.post(url, json=body, headers=_headers(config), timeout=timeout) as response:
        text = await response.text()
        status = response.status
        header = response.headers.get("Retry-After")
    if gated and is_throttle(status, delay := retry_after_s(header)):
        raise ProviderThrottled(f"HTTP {status}", status=status, retry_after_s=delay)
    return status, text, header


async def post_chat(session: aiohttp.ClientSession, config: LlmConfig, body: dict[str, Any]) -> ChatReply:
    """POST ``body`` to ``{base_url}/chat/completions``; see the module docstring for the rules."""
    url = f"{config.base_url.rstrip('/')}/chat/completions"
    attempts = _Attempts(config)
    gate = current_gate()

    async def one_request() -> tuple[int, str, str | None]:
        attempts.requests += 1
        return await _send(session, url, config, body, gated=gate is not None)

    while True:
        try:
            if gate is None:
                status, text, header = await one_request()
            else:  # a throttle is waited out in the gate, with every worker calling this provider
                status, text, header = await gate.call_provider(provider_identity(config), one_request)
        except WaitedTooLong as exc:
            raise attempts.give_up(f"rate limited for too long: {exc}") from exc
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
        if "response_format" in body and names_the_format(status, text):
            raise FormatRefused(reason, attempts.retries, attempts.waited_s, attempts.requests)
        if status in RETRY_AFTER_STATUSES:
            await attempts.wait(reason, retry_after_s(header))
        elif status >= 500 or status == 408:
            await attempts.wait(reason)
        else:
            raise attempts.give_up(reason)
