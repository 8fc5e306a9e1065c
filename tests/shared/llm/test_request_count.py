from __future__ import annotations

import asyncio

import httpx
import pytest

from shared.llm import RequestCount, counting
from shared.llm.request_count import counted_async_client

pytestmark = pytest.mark.unit


def test_retries_are_failed_requests_sent_again() -> None:
    count = RequestCount(requests=5, succeeded=3)
    assert (count.failed, count.retries(gave_up=False), count.retries(gave_up=True)) == (2, 2, 1)
    assert RequestCount().retries(gave_up=True) == 0


async def test_concurrent_blocks_count_their_own_requests() -> None:
    client = counted_async_client()
    assert client is not None and counted_async_client() is client  # one per event loop

    def respond(request: httpx.Request) -> httpx.Response:
        return httpx.Response(500 if request.url.path == "/bad" else 200)

    mock = httpx.AsyncClient(transport=httpx.MockTransport(respond), event_hooks=client.event_hooks)

    async def turn(paths: list[str]) -> RequestCount:
        with counting() as count:
            for path in paths:
                await asyncio.create_task(mock.get(f"http://model{path}"))  # a child task counts too
            return count

    first, second = await asyncio.gather(turn(["/bad", "/ok"]), turn(["/ok", "/ok", "/bad", "/bad"]))
    assert (first.requests, first.succeeded) == (2, 1)
    assert (second.requests, second.succeeded) == (4, 2)
    await mock.get("http://model/ok")  # outside a block: counted nowhere, no error
    await mock.aclose()
