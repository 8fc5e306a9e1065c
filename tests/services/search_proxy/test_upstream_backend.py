"""The ``http`` backend against a real local HTTP server (uvicorn in a thread)."""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Iterator
from typing import Any

import pytest
import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from services.search_proxy.guarded_transport import guarded_client
from services.search_proxy.search_filters import SearchFilters
from services.search_proxy.upstream_backend import (
    HttpSearchBackend,
    UpstreamConfig,
    UpstreamRefused,
    UpstreamRejected,
    UpstreamSchemaError,
    UpstreamTimeout,
    UpstreamUnavailable,
)
from services.stack.servers import free_port
from shared.http.outbound_guard import OutboundPolicy

pytestmark = [pytest.mark.integration, pytest.mark.timeout(30)]

LOOPBACK_ALLOWED = OutboundPolicy.from_setting("127.0.0.0/8")  # the fake upstream is a loopback server


class Upstream:
    """Behaviour switches for the fake upstream, and what it received."""

    def __init__(self) -> None:
        self.behaviour = "ok"
        self.failures_left = 0
        self.requests: list[dict[str, Any]] = []
        self.release = threading.Event()


def build_app(state: Upstream) -> FastAPI:
    app = FastAPI()

    @app.post("/v1/search")
    async def search(request: Request) -> JSONResponse:
        body = await request.json()
        state.requests.append({"headers": dict(request.headers), "body": body})
        if state.behaviour == "slow":
            await asyncio.to_thread(state.release.wait, 5)
        if state.failures_left > 0:
            state.failures_left -= 1
            return JSONResponse({"error": "temporarily unavailable"}, status_code=503)
        if state.behaviour == "unauthorized":
            return JSONResponse({"error": "bad key"}, status_code=401)
        if state.behaviour == "bad_schema":
            return JSONResponse({"results": [{"id": "obs-1", "score": 0.9}]})
        return JSONResponse(
            {
                "results": [
                    {"externalId": "obs-1", "score": 0.9, "title": "Redis outage", "sourceType": "github_pr"},
                    {"externalId": "obs-2", "score": None},
                ],
                "latency": {"total": 12},
            }
        )

    return app


@pytest.fixture(scope="module")
def upstream() -> Iterator[tuple[str, Upstream]]:
    state = Upstream()
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(build_app(state), host="127.0.0.1", port=port, log_config=None))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    started = threading.Event()
    for _ in range(200):
        if server.started:
            started.set()
            break
        started.wait(0.05)
    assert server.started, "fake upstream did not start"
    yield f"http://127.0.0.1:{port}", state
    state.release.set()
    server.should_exit = True
    thread.join(10)


@pytest.fixture
def state(upstream: tuple[str, Upstream]) -> Upstream:
    _, st = upstream
    st.behaviour, st.failures_left = "ok", 0
    st.requests.clear()
    st.release.clear()
    return st


async def no_sleep(_: float) -> None:
    return None


def backend(url: str, **kw: Any) -> HttpSearchBackend:
    config = UpstreamConfig(base_url=url, api_key="sk-test", workspace_id="ws-eval", **kw)
    return HttpSearchBackend(config, policy=LOOPBACK_ALLOWED, sleep=no_sleep)


async def test_success_sends_auth_and_workspace_and_maps_hits(
    upstream: tuple[str, Upstream], state: Upstream
) -> None:
    client = backend(upstream[0])
    hits = await client.search("redis", "thorough", 5, 10, SearchFilters(source_type=["github_pr"]))
    await client.aclose()
    assert [(h.id, h.score, h.rank) for h in hits] == [("obs-1", 0.9, 11), ("obs-2", 0.0, 12)]
    assert hits[0].source_type == "github_pr"
    sent = state.requests[0]
    assert sent["headers"]["authorization"] == "Bearer sk-test"
    assert sent["headers"]["x-workspace-id"] == "ws-eval"
    assert sent["body"] == {
        "query": "redis",
        "mode": "thorough",
        "limit": 5,
        "offset": 10,
        "filters": {"source_type": ["github_pr"]},
    }


async def test_retries_5xx_then_succeeds(upstream: tuple[str, Upstream], state: Upstream) -> None:
    state.failures_left = 2
    delays: list[float] = []

    async def record(delay: float) -> None:
        delays.append(delay)

    config = UpstreamConfig(base_url=upstream[0], api_key="k", max_retries=3, backoff_base_s=0.1)
    client = HttpSearchBackend(config, policy=LOOPBACK_ALLOWED, sleep=record)
    hits = await client.search("redis", "balanced", 5, 0, SearchFilters())
    await client.aclose()
    assert [h.id for h in hits] == ["obs-1", "obs-2"]
    assert len(state.requests) == 3
    assert delays == [0.1, 0.2], "exponential backoff"


async def test_gives_up_after_the_retries(upstream: tuple[str, Upstream], state: Upstream) -> None:
    state.failures_left = 10
    client = backend(upstream[0], max_retries=2)
    with pytest.raises(UpstreamUnavailable, match="503 after 3 attempts"):
        await client.search("redis", "balanced", 5, 0, SearchFilters())
    await client.aclose()
    assert len(state.requests) == 3


async def test_timeout_is_reported(upstream: tuple[str, Upstream], state: Upstream) -> None:
    state.behaviour = "slow"
    client = backend(upstream[0], timeout_s=0.3, max_retries=1)
    with pytest.raises(UpstreamTimeout, match=r"did not answer within 0\.3s \(2 attempts\)"):
        await client.search("redis", "balanced", 5, 0, SearchFilters())
    state.release.set()
    await client.aclose()


async def test_bad_response_schema_names_the_field(upstream: tuple[str, Upstream], state: Upstream) -> None:
    state.behaviour = "bad_schema"
    client = backend(upstream[0])
    with pytest.raises(UpstreamSchemaError, match=r"results\.0\.externalId: Field required"):
        await client.search("redis", "balanced", 5, 0, SearchFilters())
    await client.aclose()


async def test_4xx_is_not_retried(upstream: tuple[str, Upstream], state: Upstream) -> None:
    state.behaviour = "unauthorized"
    client = backend(upstream[0], max_retries=3)
    with pytest.raises(UpstreamRejected, match="401"):
        await client.search("redis", "balanced", 5, 0, SearchFilters())
    await client.aclose()
    assert len(state.requests) == 1


async def test_connection_refused_is_unavailable() -> None:
    client = backend(f"http://127.0.0.1:{free_port()}", max_retries=1)
    with pytest.raises(UpstreamUnavailable, match="cannot reach upstream"):
        await client.search("redis", "balanced", 5, 0, SearchFilters())
    await client.aclose()


async def test_a_named_upstream_is_called_at_its_checked_address_with_its_host_header(
    upstream: tuple[str, Upstream], state: Upstream
) -> None:
    """Through httpx's real transport: the name resolves (stubbed) to the loopback server, which the
    allowance permits; the request goes to that address and still says ``Host: search.test``."""
    port = upstream[0].rsplit(":", 1)[1]

    async def stub_dns(host: str, _: int) -> list[str]:
        return {"search.test": ["127.0.0.1"]}[host]

    config = UpstreamConfig(base_url=f"http://search.test:{port}", api_key="k")
    client = HttpSearchBackend(config, client=guarded_client(LOOPBACK_ALLOWED, 5, stub_dns))
    assert [h.id for h in await client.search("redis", "balanced", 5, 0, SearchFilters())] == [
        "obs-1",
        "obs-2",
    ]
    await client.aclose()
    assert state.requests[0]["headers"]["host"] == f"search.test:{port}"
    strict = HttpSearchBackend(config, client=guarded_client(OutboundPolicy(), 5, stub_dns))
    with pytest.raises(UpstreamRefused, match=re.escape("search.test (127.0.0.1): 127.0.0.0/8 is loopback")):
        await strict.search("redis", "balanced", 5, 0, SearchFilters())
    await strict.aclose()
    assert len(state.requests) == 1
