"""The HTTP target against httpx's in-process MockTransport (no network)."""

from __future__ import annotations

import json
from collections.abc import Callable

import httpx
import pytest

from services.evaluator.errors import TargetConfigError, TargetRejected, TargetTimeout, TargetUnavailable
from services.evaluator.targets.base import CallContext
from services.evaluator.targets.http_endpoint import HttpEndpointTarget, resolve_headers
from shared.contracts import EvalTask, HttpTarget

pytestmark = pytest.mark.unit

CTX = CallContext(worker_id="w1", task_id="e:i:0", attempt=1)


def task_for(spec: HttpTarget) -> EvalTask:
    return EvalTask(
        experiment_id="e", item_id="i", input={"query": "hello", "k": 3}, target=spec, timeout_s=2
    )


def target(handler: Callable[[httpx.Request], httpx.Response]) -> HttpEndpointTarget:
    return HttpEndpointTarget(httpx.AsyncClient(transport=httpx.MockTransport(handler)))


async def test_post_fills_the_body_sends_headers_and_maps_the_output(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("YS_TEST_TOKEN", "s3cret")
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"data": {"answer": "hi", "docs": [{"id": "d9"}]}})

    spec = HttpTarget(
        url="http://upstream.test/ask",
        headers={"X-Client": "yardstick"},
        headers_from_env={"Authorization": "YS_TEST_TOKEN"},
        body_template={"q": "{input.query}", "top_k": "{input.k}"},
        output_mapping={"answer": "data.answer", "top": "data.docs.0.id"},
    )
    result = await target(handler).call(task_for(spec), CTX)
    assert result.output == {"answer": "hi", "top": "d9"}
    request = seen[0]
    assert request.method == "POST"
    assert json.loads(request.content) == {"q": "hello", "top_k": 3}
    assert request.headers["Authorization"] == "s3cret"
    assert request.headers["X-Client"] == "yardstick"
    assert request.headers["Yardstick-Task-Id"] == "e:i:0"


async def test_get_sends_the_filled_template_as_query_parameters() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"ok": True})

    spec = HttpTarget(
        url="http://upstream.test/search", method="GET", body_template={"q": "{input.query}", "n": 2}
    )
    result = await target(handler).call(task_for(spec), CTX)
    assert result.output == {"ok": True}
    assert dict(seen[0].url.params) == {"q": "hello", "n": "2"}
    assert seen[0].content == b""


def test_missing_env_var_for_a_header_is_a_clear_config_error() -> None:
    spec = HttpTarget(url="http://x.test", headers_from_env={"Authorization": "NOT_SET_ANYWHERE"})
    with pytest.raises(TargetConfigError, match=r"'NOT_SET_ANYWHERE'.*not set on this worker"):
        resolve_headers(spec, environ={})


async def test_4xx_is_a_terminal_error_with_status_and_body_excerpt() -> None:
    long_body = "bad query " + "x" * 1000
    spec = HttpTarget(url="http://upstream.test/ask")
    with pytest.raises(TargetRejected, match=r"answered 422: bad query x+…") as info:
        await target(lambda r: httpx.Response(422, text=long_body)).call(task_for(spec), CTX)
    assert len(str(info.value)) < 450


async def test_5xx_is_transient() -> None:
    spec = HttpTarget(url="http://upstream.test/ask")
    with pytest.raises(TargetUnavailable, match=r"answered 503: overloaded"):
        await target(lambda r: httpx.Response(503, text="overloaded")).call(task_for(spec), CTX)


async def test_connection_errors_and_timeouts_are_transient() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    def stall(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("read timed out", request=request)

    spec = HttpTarget(url="http://upstream.test/ask")
    with pytest.raises(TargetUnavailable, match=r"ConnectError"):
        await target(refuse).call(task_for(spec), CTX)
    with pytest.raises(TargetTimeout, match=r"within 2s"):
        await target(stall).call(task_for(spec), CTX)


async def test_non_json_success_body_is_a_terminal_error() -> None:
    spec = HttpTarget(url="http://upstream.test/ask")
    with pytest.raises(TargetRejected, match=r"not JSON: <html>"):
        await target(lambda r: httpx.Response(200, text="<html>")).call(task_for(spec), CTX)
