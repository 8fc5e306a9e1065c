"""The HTTP target against an in-process aiohttp server on a loopback port."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from services.evaluator.errors import (
    TargetConfigError,
    TargetRejected,
    TargetThrottled,
    TargetTimeout,
    TargetUnavailable,
)
from services.evaluator.targets.base import CallContext
from services.evaluator.targets.guarded_session import new_session
from services.evaluator.targets.http_endpoint import HttpEndpointTarget, resolve_headers
from shared.http.outbound_guard import OutboundPolicy
from yardstick.api.agent_messages import TokenUsage
from yardstick.api.eval_messages import EvalTask, HttpTarget

pytestmark = pytest.mark.unit

LOOPBACK_ALLOWED = OutboundPolicy.from_setting("127.0.0.0/8,::1/128")
CTX = CallContext(worker_id="w1", task_id="e:i:0", attempt=1)
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class Upstream:
    """One route, ``/ask``, answered by whatever handler the test sets; requests are kept."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, dict[str, str], dict[str, str], bytes]] = []
        self.handler: Handler = self._ok
        self.server = TestServer(web.Application())
        self.server.app.router.add_route("*", "/ask", self._dispatch)

    async def _ok(self, request: web.Request) -> web.StreamResponse:
        return web.json_response({"ok": True})

    async def _dispatch(self, request: web.Request) -> web.StreamResponse:
        self.seen.append((request.method, dict(request.headers), dict(request.query), await request.read()))
        return await self.handler(request)

    def url(self) -> str:
        return str(self.server.make_url("/ask"))


@pytest.fixture
async def upstream() -> AsyncIterator[Upstream]:
    server = Upstream()
    await server.server.start_server()
    yield server
    await server.server.close()


@pytest.fixture
async def target() -> AsyncIterator[HttpEndpointTarget]:
    session = new_session(8, LOOPBACK_ALLOWED)  # the upstream is a loopback server
    yield HttpEndpointTarget(session)
    await session.close()


def task_for(spec: HttpTarget, timeout_s: float = 2) -> EvalTask:
    return EvalTask(
        experiment_id="e", item_id="i", input={"query": "hello", "k": 3}, target=spec, timeout_s=timeout_s
    )


def answer(status: int, text: str) -> Handler:
    async def handle(request: web.Request) -> web.StreamResponse:
        return web.Response(status=status, text=text)

    return handle


async def test_post_fills_the_body_sends_headers_and_maps_the_output(
    upstream: Upstream, target: HttpEndpointTarget, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("YS_TEST_TOKEN", "s3cret")

    async def handle(request: web.Request) -> web.StreamResponse:
        return web.json_response({"data": {"answer": "hi", "docs": [{"id": "d9"}]}})

    upstream.handler = handle
    spec = HttpTarget(
        url=upstream.url(),
        headers={"X-Client": "yardstick"},
        headers_from_env={"Authorization": "YS_TEST_TOKEN"},
        body_template={"q": "{input.query}", "top_k": "{input.k}"},
        output_mapping={"answer": "data.answer", "top": "data.docs.0.id"},
    )
    result = await target.call(task_for(spec), CTX)
    assert result.output == {"answer": "hi", "top": "d9"}
    method, headers, _, body = upstream.seen[0]
    assert method == "POST"
    assert json.loads(body) == {"q": "hello", "top_k": 3}
    assert headers["Authorization"] == "s3cret"
    assert headers["X-Client"] == "yardstick"
    assert headers["Yardstick-Task-Id"] == "e:i:0"


async def test_get_sends_the_filled_template_as_query_parameters(
    upstream: Upstream, target: HttpEndpointTarget
) -> None:
    spec = HttpTarget(url=upstream.url(), method="GET", body_template={"q": "{input.query}", "n": 2})
    result = await target.call(task_for(spec), CTX)
    assert result.output == {"ok": True}
    method, _, query, body = upstream.seen[0]
    assert (method, query, body) == ("GET", {"q": "hello", "n": "2"}, b"")


async def test_without_a_template_the_items_input_is_the_json_body(
    upstream: Upstream, target: HttpEndpointTarget
) -> None:
    await target.call(task_for(HttpTarget(url=upstream.url())), CTX)
    method, headers, _, body = upstream.seen[0]
    assert method == "POST" and headers["Content-Type"] == "application/json"
    assert json.loads(body) == {"query": "hello", "k": 3}
    await target.call(task_for(HttpTarget(url=upstream.url(), method="GET")), CTX)
    method, _, query, body = upstream.seen[1]
    assert (method, query, body) == ("GET", {"query": "hello", "k": "3"}, b"")


def test_missing_env_var_for_a_header_is_a_clear_config_error() -> None:
    spec = HttpTarget(url="http://x.test", headers_from_env={"Authorization": "NOT_SET_ANYWHERE"})
    with pytest.raises(TargetConfigError, match=r"'NOT_SET_ANYWHERE'.*not set on this worker"):
        resolve_headers(spec, environ={})


async def test_4xx_is_a_terminal_error_with_status_and_body_excerpt(
    upstream: Upstream, target: HttpEndpointTarget
) -> None:
    upstream.handler = answer(422, "bad query " + "x" * 1000)
    with pytest.raises(TargetRejected, match=r"answered 422: bad query x+…") as info:
        await target.call(task_for(HttpTarget(url=upstream.url())), CTX)
    assert len(str(info.value)) < 450


async def test_5xx_is_transient(upstream: Upstream, target: HttpEndpointTarget) -> None:
    upstream.handler = answer(503, "overloaded")
    with pytest.raises(TargetUnavailable, match=r"answered 503: overloaded"):
        await target.call(task_for(HttpTarget(url=upstream.url())), CTX)


def throttle(status: int, retry_after: str | None) -> Handler:
    async def handle(request: web.Request) -> web.StreamResponse:
        headers = {} if retry_after is None else {"Retry-After": retry_after}
        return web.Response(status=status, text="slow down", headers=headers)

    return handle


@pytest.mark.parametrize(
    ("status", "retry_after", "expected"), [(429, "2", 2.0), (429, None, None), (503, "0.5", 0.5)]
)
async def test_429_and_503_with_retry_after_are_throttles_carrying_the_delay(
    upstream: Upstream,
    target: HttpEndpointTarget,
    status: int,
    retry_after: str | None,
    expected: float | None,
) -> None:
    upstream.handler = throttle(status, retry_after)
    with pytest.raises(TargetThrottled, match=rf"answered {status} \(rate limited\)") as info:
        await target.call(task_for(HttpTarget(url=upstream.url())), CTX)
    assert info.value.status == status and info.value.retry_after_s == expected


async def test_connection_errors_and_timeouts_are_transient(
    upstream: Upstream, target: HttpEndpointTarget
) -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{s.getsockname()[1]}/ask"
    with pytest.raises(TargetUnavailable, match=r"ClientConnectorError"):
        await target.call(task_for(HttpTarget(url=closed)), CTX)

    async def stall(request: web.Request) -> web.StreamResponse:
        await asyncio.sleep(5)
        return web.json_response({})

    upstream.handler = stall
    with pytest.raises(TargetTimeout, match=r"within 0.2s"):
        await target.call(task_for(HttpTarget(url=upstream.url()), timeout_s=0.2), CTX)


async def test_non_json_success_body_is_a_terminal_error(
    upstream: Upstream, target: HttpEndpointTarget
) -> None:
    upstream.handler = answer(200, "<html>")
    with pytest.raises(TargetRejected, match=r"not JSON: <html>"):
        await target.call(task_for(HttpTarget(url=upstream.url())), CTX)


async def test_a_reported_usage_comes_back_with_the_output(
    upstream: Upstream, target: HttpEndpointTarget
) -> None:
    upstream.handler = answer(
        200,
        json.dumps(
            {"model": "m1", "usage": {"prompt_tokens": 7, "completion_tokens": 5, "total_tokens": 12}}
        ),
    )
    result = await target.call(task_for(HttpTarget(url=upstream.url())), CTX)
    assert result.usage == TokenUsage(input_tokens=7, output_tokens=5, total_tokens=12, model="m1")
