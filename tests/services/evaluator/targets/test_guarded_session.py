"""The http target's outbound guard at call time, first hop and redirects.

Only loopback traffic: the servers listen on 127.0.0.1 and 127.0.0.2, host names come from a stub
resolver, and the non-loopback ranges are checked on the guard's parts without a connection."""

from __future__ import annotations

import re
import socket
from collections.abc import AsyncIterator, Callable
from types import SimpleNamespace
from typing import cast

import aiohttp
import pytest
from aiohttp import web
from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.test_utils import TestServer
from yarl import URL

from services.evaluator.errors import TargetConfigError
from services.evaluator.targets.base import CallContext
from services.evaluator.targets.guarded_session import GuardedResolver, new_session, refuse_literal_addresses
from services.evaluator.targets.http_endpoint import HttpEndpointTarget
from shared.http.outbound_guard import OutboundPolicy, OutboundRefused
from yardstick.api.eval_messages import EvalTask, HttpTarget

pytestmark = pytest.mark.unit

CTX = CallContext(worker_id="w1", task_id="e:i:0", attempt=1)
FIRST_HOP_ONLY = OutboundPolicy.from_setting("127.0.0.1/32")


class StubResolver(AbstractResolver):
    """DNS from a dict: no lookup leaves the test."""

    def __init__(self, answers: dict[str, str]) -> None:
        self.answers = answers

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        if host not in self.answers:
            raise OSError(f"stub resolver: no such host {host!r}")
        address = self.answers[host]
        return [{"hostname": host, "host": address, "port": port, "family": family, "proto": 0, "flags": 0}]

    async def close(self) -> None:
        return None


class Hops:
    """``first`` on 127.0.0.1 redirects ``/hop`` to ``location``; ``inner`` on 127.0.0.2 plays the
    internal service whose answer must not come back."""

    def __init__(self) -> None:
        self.location = ""
        self.first_hits = 0
        self.inner_hits = 0
        first, inner = web.Application(), web.Application()
        first.router.add_get("/hop", self._hop)
        first.router.add_get("/ask", self._ask_first)
        inner.router.add_get("/ask", self._ask_inner)
        self.first = TestServer(first, host="127.0.0.1")
        self.inner = TestServer(inner, host="127.0.0.2")

    @property
    def inner_port(self) -> int:
        assert self.inner.port is not None, "the inner server is not started"
        return self.inner.port

    async def _hop(self, request: web.Request) -> web.StreamResponse:
        self.first_hits += 1
        raise web.HTTPFound(self.location)

    async def _ask_first(self, request: web.Request) -> web.StreamResponse:
        self.first_hits += 1
        return web.json_response({"from": "first"})

    async def _ask_inner(self, request: web.Request) -> web.StreamResponse:
        self.inner_hits += 1
        return web.json_response({"secret": "internal"})


@pytest.fixture
async def hops() -> AsyncIterator[Hops]:
    servers = Hops()
    await servers.first.start_server()
    await servers.inner.start_server()
    yield servers
    await servers.first.close()
    await servers.inner.close()


async def call(url: str, policy: OutboundPolicy, answers: dict[str, str] | None = None) -> object:
    session = new_session(4, policy, StubResolver(answers or {}))
    try:
        task = EvalTask(
            experiment_id="e",
            item_id="i",
            input={},
            target=HttpTarget(url=url, method="GET"),
            timeout_s=5,
        )
        return (await HttpEndpointTarget(session).call(task, CTX)).output
    finally:
        await session.close()


async def test_a_loopback_target_is_refused_before_any_request(hops: Hops) -> None:
    url = str(hops.first.make_url("/ask"))
    with pytest.raises(
        TargetConfigError, match=r"127\.0\.0\.1: 127\.0\.0\.0/8 is loopback.*TARGET_ALLOWED_NETWORKS"
    ):
        await call(url, OutboundPolicy())
    assert hops.first_hits == 0


@pytest.mark.parametrize(
    ("host", "refused"),
    [
        ("[::1]", "::1/128 is loopback"),
        ("[::ffff:127.0.0.1]", "127.0.0.0/8 is loopback"),
        ("0.0.0.0", "0.0.0.0/8"),
    ],
)
async def test_other_loopback_spellings_are_refused(hops: Hops, host: str, refused: str) -> None:
    port = hops.first.port
    with pytest.raises(TargetConfigError, match=re.escape(refused)):
        await call(f"http://{host}:{port}/ask", OutboundPolicy())
    assert hops.first_hits == 0


async def test_a_host_name_resolving_to_loopback_is_refused(hops: Hops) -> None:
    url = f"http://innocent.example:{hops.first.port}/ask"
    with pytest.raises(TargetConfigError, match=r"innocent\.example \(127\.0\.0\.1\)"):
        await call(url, OutboundPolicy(), {"innocent.example": "127.0.0.1"})
    assert hops.first_hits == 0


async def test_allowed_networks_let_the_call_through(hops: Hops) -> None:
    url = f"http://innocent.example:{hops.first.port}/ask"
    assert await call(url, FIRST_HOP_ONLY, {"innocent.example": "127.0.0.1"}) == {"from": "first"}
    assert await call(str(hops.first.make_url("/ask")), FIRST_HOP_ONLY) == {"from": "first"}


REDIRECTS: dict[str, Callable[[int], str]] = {
    "ip literal": lambda port: f"http://127.0.0.2:{port}/ask",
    "ipv4-mapped literal": lambda port: f"http://[::ffff:127.0.0.2]:{port}/ask",
    "host name": lambda port: f"http://internal.example:{port}/ask",
}


@pytest.mark.parametrize("form", list(REDIRECTS))
async def test_a_redirect_to_a_refused_address_is_refused(hops: Hops, form: str) -> None:
    hops.location = REDIRECTS[form](hops.inner_port)
    with pytest.raises(TargetConfigError, match=r"127\.0\.0\.2.*127\.0\.0\.0/8 is loopback"):
        await call(str(hops.first.make_url("/hop")), FIRST_HOP_ONLY, {"internal.example": "127.0.0.2"})
    assert (hops.first_hits, hops.inner_hits) == (1, 0), "the first hop was allowed, the redirect was not"


async def test_the_same_redirect_is_followed_when_its_address_is_allowed(hops: Hops) -> None:
    """The control: the construction above does reach the inner server unless the guard stops it."""
    hops.location = REDIRECTS["host name"](hops.inner_port)
    both = OutboundPolicy.from_setting("127.0.0.1/32,127.0.0.2/32")
    output = await call(str(hops.first.make_url("/hop")), both, {"internal.example": "127.0.0.2"})
    assert output == {"secret": "internal"}
    assert (hops.first_hits, hops.inner_hits) == (1, 1)


NON_LOOPBACK = ["10.0.0.1", "172.16.0.1", "192.168.0.1", "169.254.169.254"]


@pytest.mark.parametrize("address", NON_LOOPBACK)
async def test_the_resolver_refuses_private_and_link_local_answers(address: str) -> None:
    resolver = GuardedResolver(OutboundPolicy(), StubResolver({"svc.example": address}))
    with pytest.raises(OutboundRefused, match=re.escape(f"svc.example ({address})")):
        await resolver.resolve("svc.example", 80)


@pytest.mark.parametrize("address", NON_LOOPBACK)
async def test_the_middleware_refuses_private_and_link_local_literals(address: str) -> None:
    """Checked on the middleware itself with a handler that records: no connection is attempted."""
    reached: list[str] = []

    async def handler(request: aiohttp.ClientRequest) -> aiohttp.ClientResponse:
        reached.append(str(request.url))
        raise AssertionError("the guard let the request through")

    request = cast(aiohttp.ClientRequest, SimpleNamespace(url=URL(f"http://{address}/latest/meta-data/")))
    with pytest.raises(OutboundRefused, match=re.escape(address)):
        await refuse_literal_addresses(OutboundPolicy())(request, handler)
    assert reached == []


async def test_the_middleware_remembers_its_verdicts_without_changing_them() -> None:
    """A refused literal is refused again (from the remembered verdict); an allowed one and a name
    pass every time."""
    reached: list[str] = []

    async def handler(request: aiohttp.ClientRequest) -> aiohttp.ClientResponse:
        reached.append(str(request.url))
        return cast(aiohttp.ClientResponse, None)

    middleware = refuse_literal_addresses(OutboundPolicy.from_setting("10.1.0.0/16"))
    for _ in range(2):
        for url in ("http://10.1.2.3/ok", "http://svc.example/ok"):
            await middleware(cast(aiohttp.ClientRequest, SimpleNamespace(url=URL(url))), handler)
        with pytest.raises(OutboundRefused, match=re.escape("10.2.0.1")):
            refused = SimpleNamespace(url=URL("http://10.2.0.1/no"))
            await middleware(cast(aiohttp.ClientRequest, refused), handler)
    assert reached == ["http://10.1.2.3/ok", "http://svc.example/ok"] * 2
