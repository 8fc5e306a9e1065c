"""A fake OpenAI-compatible server on 127.0.0.1 for real instrumentation libraries around the real
``openai`` client (no provider is reachable here): ``POST /v1/chat/completions`` asks for the
``get_price`` tool first and answers once it has the result."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import openai
import pytest
from opentelemetry.sdk.trace import TracerProvider

TOOLS: Any = [{"type": "function", "function": {"name": "get_price", "parameters": {"type": "object"}}}]
MODEL = "gpt-fake-2026"


class FakeOpenAI(BaseHTTPRequestHandler):
    """``POST /v1/chat/completions``: asks for ``get_price`` first, answers once it has the result."""

    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers["content-length"])))
        has_result = any(m.get("role") == "tool" for m in request["messages"])
        call = {
            "id": "call_1",
            "type": "function",
            "function": {"name": "get_price", "arguments": '{"item": "burger"}'},
        }
        message = (
            {"role": "assistant", "content": "A burger is 5 dollars."}
            if has_result
            else {"role": "assistant", "content": None, "tool_calls": [call]}
        )
        body = json.dumps(
            {
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "created": 1,
                "model": MODEL,
                "choices": [
                    {"index": 0, "message": message, "finish_reason": "stop" if has_result else "tool_calls"}
                ],
                "usage": {"prompt_tokens": 20, "completion_tokens": 6, "total_tokens": 26},
            }
        ).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def fake_openai() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeOpenAI)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/v1"
    server.shutdown()
    thread.join(5)


def tool_turn(base_url: str, provider: TracerProvider) -> None:
    """One agent turn with the real ``openai`` client, in a ``turn`` span: the model asks for
    ``get_price``, is given its result and answers."""
    client = openai.OpenAI(base_url=base_url, api_key="test-key", max_retries=0)
    messages: list[Any] = [
        {"role": "system", "content": "You sell burgers."},
        {"role": "user", "content": "How much is a burger?"},
    ]
    with provider.get_tracer("shop").start_as_current_span("turn"):
        first = client.chat.completions.create(model="gpt-fake", messages=messages, tools=TOOLS)
        asked = first.choices[0].message
        assert asked.tool_calls is not None
        messages += [
            asked.model_dump(exclude_none=True),
            {"role": "tool", "tool_call_id": asked.tool_calls[0].id, "content": "5 dollars"},
        ]
        client.chat.completions.create(model="gpt-fake", messages=messages, tools=TOOLS)
