"""A provider on a bad day: an OpenAI-compatible chat-completions server on 127.0.0.1, scripted
per test.

Each request to ``POST /v1/chat/completions`` is answered by the next :class:`Reply` of the
script (the ``fallback`` once it runs out), except that a request whose ``response_format`` type is
in ``refuse`` gets ``refuse_status`` (500 by default, as llama-cpp-python's server answers
``json_schema``) with a body naming the format, at once, consuming nothing. Every request is
recorded with the status it got, so tests count retries on the wire.
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest
from aiohttp import web

from shared.llm import PROCESS_FORMATS


@dataclass(frozen=True)
class Reply:
    """One scripted answer: a status (with headers and body text), or a 200 chat completion."""

    status: int = 200
    content: str | None = ""
    tool_calls: list[dict[str, Any]] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    body: str | None = None
    delay_s: float = 0.0
    """The server takes this long before answering (a slow model; the client's timeout decides)."""
    usage: tuple[int, int] = (11, 7)

    @classmethod
    def json(cls, value: Any, **kw: Any) -> Reply:
        return cls(content=json.dumps(value), **kw)

    @classmethod
    def error(cls, status: int, retry_after: str | None = None, body: str = "") -> Reply:
        headers = {"Retry-After": retry_after} if retry_after is not None else {}
        return cls(status=status, headers=headers, body=body or json.dumps({"error": {"message": "bad day"}}))

    @classmethod
    def tool_call(cls, name: str, arguments: dict[str, Any] | str, call_id: str = "call-1") -> Reply:
        args = arguments if isinstance(arguments, str) else json.dumps(arguments)
        call = {"id": call_id, "type": "function", "function": {"name": name, "arguments": args}}
        return cls(content=None, tool_calls=[call])


@dataclass
class Seen:
    body: dict[str, Any]
    status: int

    @property
    def response_format(self) -> str | None:
        fmt = self.body.get("response_format")
        return fmt.get("type") if isinstance(fmt, dict) else None


class BadDayProvider:
    def __init__(self) -> None:
        self.script: deque[Reply] = deque()
        self.fallback: Reply = Reply.error(500, body="script exhausted")
        self.refuse: set[str] = set()
        self.refuse_status = 500
        self.seen: list[Seen] = []
        self.base_url = ""
        self.hold: asyncio.Event | None = None
        """When set to an event, every request waits for it before it is answered."""

    def then(self, *replies: Reply) -> BadDayProvider:
        self.script.extend(replies)
        return self

    def statuses(self) -> list[int]:
        return [s.status for s in self.seen]

    def _completion(self, reply: Reply, model: str) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": reply.content}
        if reply.tool_calls:
            message["tool_calls"] = reply.tool_calls
        prompt, completion = reply.usage
        return {
            "id": f"chatcmpl-{len(self.seen)}",
            "object": "chat.completion",
            "created": 0,
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if reply.tool_calls else "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
            },
        }

    async def handle(self, request: web.Request) -> web.Response:
        body = await request.json()
        if self.hold is not None:
            await self.hold.wait()
        fmt = body.get("response_format")
        if isinstance(fmt, dict) and fmt.get("type") in self.refuse:
            self.seen.append(Seen(body, self.refuse_status))
            message = f"response_format.type: {fmt['type']} is not supported"
            return web.json_response({"error": {"message": message}}, status=self.refuse_status)
        reply = self.script.popleft() if self.script else self.fallback
        self.seen.append(Seen(body, reply.status))
        if reply.delay_s:
            await asyncio.sleep(reply.delay_s)
        if reply.status != 200:
            return web.Response(status=reply.status, text=reply.body or "", headers=reply.headers)
        if reply.body is not None:
            return web.Response(status=200, text=reply.body, content_type="application/json")
        return web.json_response(self._completion(reply, str(body.get("model", ""))))


@asynccontextmanager
async def bad_day_provider() -> AsyncIterator[BadDayProvider]:
    provider = BadDayProvider()
    app = web.Application()
    app.router.add_post("/v1/chat/completions", provider.handle)
    runner = web.AppRunner(app, shutdown_timeout=0.1)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    provider.base_url = f"http://127.0.0.1:{port}/v1"
    try:
        yield provider
    finally:
        await runner.cleanup()


@pytest.fixture
async def provider(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[BadDayProvider]:
    """The bad-day server, with the environment pointing the ``openai`` provider (and the judges) at
    it: fast backoff, a 2 s request timeout, no Mistral key. Import it into a test module to use it."""
    async with bad_day_provider() as server:
        for name in (
            "MISTRAL_API_KEY",
            "OPENAI_API_KEY",
            "OPENAI_MODEL",
            "JUDGE_MODEL",
            "YARDSTICK_JUDGE_MODEL",
            "LLM_STRUCTURED_OUTPUT",
        ):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("JUDGE_PROVIDER", "openai")
        monkeypatch.setenv("JUDGE_MODEL", "bad-day-model")
        monkeypatch.setenv("LLM_BACKOFF_S", "0.01")
        monkeypatch.setenv("LLM_TIMEOUT_S", "2")
        PROCESS_FORMATS.forget()
        yield server
        PROCESS_FORMATS.forget()
