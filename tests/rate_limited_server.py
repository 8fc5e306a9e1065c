"""A provider with a rate limit: an aiohttp server on 127.0.0.1 that accepts at most ``limit``
requests in any one-second window and answers the rest 429 with ``Retry-After`` (as real LLM APIs
do), or fails every request with ``fail_status``. It records when each request arrived and what it
got, so a test (or ``bench/rate_limits.py``) measures the rate on the server's side.

It runs on its own event loop in its own thread: a server sharing the test's loop would stamp
requests late whenever the in-process coordinator and workers keep that loop busy, and a burst of
late stamps would look like a burst of requests.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import deque
from dataclasses import dataclass, field

from aiohttp import web

WINDOW_S = 1.0


def max_in_window(times: list[float], window_s: float = WINDOW_S) -> int:
    """The most of ``times`` (seconds, any order) that fall inside one window of ``window_s``."""
    ordered = sorted(times)
    best = 0
    first = 0
    for last, at in enumerate(ordered):
        while at - ordered[first] >= window_s:
            first += 1
        best = max(best, last - first + 1)
    return best


@dataclass
class RateLimitedServer:
    limit: int = 50
    """Requests accepted per second (sliding window)."""
    latency_s: float = 0.0
    """How long an accepted request takes (the model's latency)."""
    retry_after: str | None = "1"
    """The ``Retry-After`` of a 429 (None: send none)."""
    fail_status: int | None = None
    """Answer every request with this status instead (a target that is down, not throttling)."""
    arrivals: list[float] = field(default_factory=list)
    accepted: list[float] = field(default_factory=list)
    throttled: int = 0
    _recent: deque[float] = field(default_factory=deque)
    _runner: web.AppRunner | None = None
    _loop: asyncio.AbstractEventLoop | None = None
    _thread: threading.Thread | None = None
    url: str = ""

    async def start(self) -> str:
        """Serve on 127.0.0.1 (a free port) from a thread of its own; returns the URL."""
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="rate-limited-server", daemon=True
        )
        self._thread.start()
        started = asyncio.run_coroutine_threadsafe(self._serve(), self._loop)
        self.url = await asyncio.wrap_future(started)
        return self.url

    async def _serve(self) -> str:
        app = web.Application()
        app.router.add_post("/v1/answer", self._answer)
        app.router.add_post("/v1/chat/completions", self._chat)  # a judge's model, same limit
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0, backlog=4096)
        await site.start()
        port = self._runner.addresses[0][1]
        return f"http://127.0.0.1:{port}/v1/answer"

    async def stop(self) -> None:
        if self._loop is None or self._thread is None:
            return
        if self._runner is not None:
            await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop))
        self._loop.call_soon_threadsafe(self._loop.stop)
        await asyncio.to_thread(self._thread.join)
        self._loop.close()

    async def _answer(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        refused = await self._admit()
        return refused or web.json_response({"answer": body.get("q", ""), "ok": True})

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        """An OpenAI-style chat completion whose content is a judge's verdict (4 on 1-5)."""
        await request.read()
        refused = await self._admit()
        if refused is not None:
            return refused
        content = '{"reason": "polite and confirms the order", "score": 4}'
        return web.json_response(
            {
                "id": "chatcmpl-limited",
                "object": "chat.completion",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
                "usage": {"prompt_tokens": 50, "completion_tokens": 12, "total_tokens": 62},
            }
        )

    async def _admit(self) -> web.StreamResponse | None:
        """None for a request within the limit (after the simulated latency), else its refusal."""
        now = time.monotonic()
        self.arrivals.append(now)
        if self.fail_status is not None:
            return web.json_response({"error": "down"}, status=self.fail_status)
        while self._recent and now - self._recent[0] >= WINDOW_S:
            self._recent.popleft()
        if len(self._recent) >= self.limit:
            self.throttled += 1
            headers = {} if self.retry_after is None else {"Retry-After": self.retry_after}
            return web.json_response({"error": "rate limited"}, status=429, headers=headers)
        self._recent.append(now)
        self.accepted.append(now)
        if self.latency_s:
            await asyncio.sleep(self.latency_s)  # the simulated model's latency
        return None

    @property
    def max_rate(self) -> int:
        """The most requests (accepted or not) that arrived in any one second."""
        return max_in_window(self.arrivals)

    @property
    def max_accepted_rate(self) -> int:
        return max_in_window(self.accepted)
