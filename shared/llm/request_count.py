"""Counting the HTTP requests a LangChain chat model sends during one piece of work (an agent turn).

The OpenAI SDK retries inside ``ChatOpenAI``, out of sight; the shared ``httpx`` client that
:func:`shared.llm.chat_model` gives it has event hooks that add every request, and every response
with a success status, to the :class:`RequestCount` of the current :func:`counting` block.
``ChatMistralAI`` builds its own client; :func:`count_requests_of` adds the same hooks to it. The count
lives in a context variable, so concurrent turns each count their own (asyncio tasks inherit the
block's counter).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

import httpx


@dataclass
class RequestCount:
    requests: int = 0
    """HTTP requests sent to the model's endpoint."""
    succeeded: int = 0
    """Responses with a status below 400."""

    @property
    def failed(self) -> int:
        """Requests that got an error status or no response at all (timeout, refused connection)."""
        return self.requests - self.succeeded

    def retries(self, gave_up: bool) -> int:
        """Failed requests that were sent again: all of them, but the last one when the work gave up."""
        return max(0, self.failed - 1) if gave_up else self.failed


_current: ContextVar[RequestCount | None] = ContextVar("yardstick_llm_request_count", default=None)


@contextmanager
def counting() -> Iterator[RequestCount]:
    """Count the requests sent inside the block (and the tasks it starts)."""
    count = RequestCount()
    token = _current.set(count)
    try:
        yield count
    finally:
        _current.reset(token)


async def _on_request(request: httpx.Request) -> None:
    count = _current.get()
    if count is not None:
        count.requests += 1


async def _on_response(response: httpx.Response) -> None:
    count = _current.get()
    if count is not None and response.status_code < 400:
        count.succeeded += 1


_clients: dict[int, httpx.AsyncClient] = {}


def count_requests_of(client: httpx.AsyncClient) -> None:
    """Add the counting hooks to a client a chat model built for itself (``ChatMistralAI`` builds
    its own, with the key in its headers): its requests count like the shared client's."""
    hooks = client.event_hooks
    client.event_hooks = {
        "request": [*hooks.get("request", []), _on_request],
        "response": [*hooks.get("response", []), _on_response],
    }


def counted_async_client() -> httpx.AsyncClient | None:
    """The process's counting ``httpx`` client for the running event loop (None outside one: the
    SDK then uses its own client and nothing is counted)."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return None
    client = _clients.get(id(loop))
    if client is None or client.is_closed:
        client = httpx.AsyncClient(event_hooks={"request": [_on_request], "response": [_on_response]})
        _clients[id(loop)] = client
    return client
