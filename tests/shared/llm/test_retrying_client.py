"""The client under ``ChatMistralAI`` re-sends 408/429/5xx, timeouts and dropped connections within
its budget, waits a ``Retry-After`` it may honour, and counts every attempt (``httpx`` mock
transport, no server)."""

from __future__ import annotations

import time
from collections import deque

import httpx
import pytest

from shared.llm import LlmConfig, counting
from shared.llm.request_count import count_requests_of
from shared.llm.retrying_client import RetryingAsyncClient

pytestmark = pytest.mark.unit

Answer = httpx.Response | Exception


def client(answers: list[Answer], max_retries: int = 2) -> tuple[RetryingAsyncClient, list[str]]:
    """A client whose requests get ``answers`` in order; the list records what each got."""
    queue: deque[Answer] = deque(answers)
    got: list[str] = []

    def respond(request: httpx.Request) -> httpx.Response:
        answer = queue.popleft()
        if isinstance(answer, Exception):
            got.append(type(answer).__name__)
            raise answer
        got.append(str(answer.status_code))
        return answer

    config = LlmConfig(
        provider="mistral", model="m", max_retries=max_retries, backoff_s=0.001, max_retry_after_s=1.0
    )
    made = RetryingAsyncClient(config, transport=httpx.MockTransport(respond), base_url="http://model")
    count_requests_of(made)
    return made, got


async def test_429_waits_its_retry_after_then_5xx_backs_off_and_every_attempt_is_counted() -> None:
    answers: list[Answer] = [
        httpx.Response(429, headers={"Retry-After": "0.2"}),
        httpx.Response(502),
        httpx.Response(200, json={"ok": True}),
    ]
    made, got = client(answers)
    started = time.monotonic()
    with counting() as count:
        response = await made.post("/chat/completions", json={"messages": []})
    assert response.status_code == 200 and got == ["429", "502", "200"]
    assert time.monotonic() - started >= 0.2
    assert (count.requests, count.succeeded, count.retries(gave_up=False)) == (3, 1, 2)


async def test_timeouts_and_dropped_connections_are_sent_again() -> None:
    request = httpx.Request("POST", "http://model/chat/completions")
    answers: list[Answer] = [
        httpx.ReadTimeout("slow", request=request),
        httpx.ConnectError("refused", request=request),
        httpx.Response(200),
    ]
    made, got = client(answers)
    assert (await made.post("/chat/completions")).status_code == 200
    assert got == ["ReadTimeout", "ConnectError", "200"]


async def test_past_its_budget_the_last_error_is_the_callers() -> None:
    made, got = client([httpx.Response(500), httpx.Response(503, text="overloaded")], max_retries=1)
    response = await made.post("/chat/completions")
    assert (response.status_code, response.text, got) == (503, "overloaded", ["500", "503"])
    request = httpx.Request("POST", "http://model/chat/completions")
    made, got = client([httpx.ReadTimeout("slow", request=request)] * 2, max_retries=1)
    with pytest.raises(httpx.ReadTimeout):
        await made.post("/chat/completions")
    assert got == ["ReadTimeout", "ReadTimeout"]


async def test_a_long_retry_after_and_other_4xx_are_not_sent_again() -> None:
    made, got = client([httpx.Response(429, headers={"Retry-After": "30"})])
    assert (await made.post("/chat/completions")).status_code == 429 and got == ["429"]
    made, got = client([httpx.Response(401)])
    assert (await made.post("/chat/completions")).status_code == 401 and got == ["401"]
