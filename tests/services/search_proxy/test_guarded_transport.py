"""The upstream search client's guarded transport. The inner transport is httpx's MockTransport and
DNS is stubbed: nothing leaves the test."""

from __future__ import annotations

import re

import httpx
import pytest

from services.search_proxy.guarded_transport import GuardedTransport
from services.search_proxy.search_filters import SearchFilters
from services.search_proxy.upstream_backend import HttpSearchBackend, UpstreamConfig, UpstreamRefused
from shared.http.outbound_guard import OutboundPolicy, OutboundRefused

pytestmark = pytest.mark.unit

PUBLIC = "93.184.215.14"
DNS = {
    "search.example": [PUBLIC],
    "internal.example": ["10.0.0.5"],
    "sneaky.example": [PUBLIC, "127.0.0.1"],
    "dual.example": ["2606:4700::1111", PUBLIC],
}


async def stub_dns(host: str, port: int) -> list[str]:
    if host not in DNS:
        raise OSError(f"stub: no such host {host!r}")
    return DNS[host]


class Recorder:
    """The inner transport: answers 200 (or what ``redirects`` says) and keeps every request."""

    def __init__(self, redirects: dict[str, str] | None = None, unreachable: set[str] | None = None) -> None:
        self.seen: list[httpx.Request] = []
        self.redirects = redirects or {}
        self.unreachable = unreachable or set()

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(request)
        if request.url.host in self.unreachable:
            raise httpx.ConnectError("unreachable", request=request)
        if request.url.host in self.redirects:
            return httpx.Response(302, headers={"Location": self.redirects[request.url.host]})
        return httpx.Response(200, json={"results": []})


def client(policy: OutboundPolicy, inner: Recorder, **kw: bool) -> httpx.AsyncClient:
    transport = GuardedTransport(policy, stub_dns, httpx.MockTransport(inner))
    return httpx.AsyncClient(transport=transport, **kw)


async def test_a_checked_name_is_sent_to_its_checked_address_with_its_own_host_header() -> None:
    inner = Recorder()
    async with client(OutboundPolicy(), inner) as c:
        response = await c.post("https://search.example:8443/v1/search", json={"q": 1})
    assert response.status_code == 200
    (sent,) = inner.seen
    assert (sent.url.host, sent.url.port, sent.url.path) == (PUBLIC, 8443, "/v1/search")
    assert sent.headers["host"] == "search.example:8443"
    assert sent.extensions["sni_hostname"] == "search.example"


@pytest.mark.parametrize(
    ("url", "refused"),
    [
        ("http://internal.example/v1/search", "internal.example (10.0.0.5): 10.0.0.0/8 is private"),
        ("http://sneaky.example/v1/search", "sneaky.example (127.0.0.1): 127.0.0.0/8 is loopback"),
        ("http://127.0.0.1:9/v1/search", "127.0.0.1: 127.0.0.0/8 is loopback"),
        ("http://[::1]:9/v1/search", "::1: ::1/128 is loopback"),
        ("http://[::ffff:127.0.0.1]:9/", "carrying IPv4 127.0.0.1: 127.0.0.0/8 is loopback"),
        ("http://169.254.169.254/latest/meta-data/", "169.254.0.0/16 is link-local"),
        ("http://0.0.0.0:9/", "0.0.0.0/8"),
    ],
)
async def test_refused_addresses_are_never_sent(url: str, refused: str) -> None:
    inner = Recorder()
    async with client(OutboundPolicy(), inner) as c:
        with pytest.raises(OutboundRefused, match=re.escape(refused)):
            await c.get(url)
    assert inner.seen == []


async def test_each_redirect_hop_is_checked() -> None:
    inner = Recorder(redirects={PUBLIC: "http://internal.example/admin"})
    async with client(OutboundPolicy(), inner, follow_redirects=True) as c:
        with pytest.raises(OutboundRefused, match=re.escape("internal.example (10.0.0.5)")):
            await c.get("http://search.example/v1/search")
    assert [r.url.host for r in inner.seen] == [PUBLIC], "the first hop went, the redirect did not"


async def test_allowed_networks_let_the_call_through() -> None:
    inner = Recorder(redirects={PUBLIC: "http://internal.example/admin"})
    allowed = OutboundPolicy.from_setting("10.0.0.0/24,127.0.0.1/32")
    async with client(allowed, inner, follow_redirects=True) as c:
        assert (await c.get("http://search.example/v1/search")).status_code == 200
        assert (await c.get("http://127.0.0.1:9/")).status_code == 200
    assert [r.url.host for r in inner.seen] == [PUBLIC, "10.0.0.5", "127.0.0.1"]


async def test_an_unreachable_address_falls_back_to_the_next_checked_one() -> None:
    inner = Recorder(unreachable={"2606:4700::1111"})
    async with client(OutboundPolicy(), inner) as c:
        assert (await c.get("http://dual.example/")).status_code == 200
    assert [r.url.host for r in inner.seen] == ["2606:4700::1111", PUBLIC]


async def test_a_name_that_does_not_resolve_is_a_connection_error() -> None:
    async with client(OutboundPolicy(), Recorder()) as c:
        with pytest.raises(httpx.ConnectError, match=re.escape("cannot resolve 'nowhere.example'")):
            await c.get("http://nowhere.example/")


async def test_the_backend_refuses_a_loopback_upstream_at_once_without_retrying() -> None:
    slept: list[float] = []

    async def sleep(delay: float) -> None:
        slept.append(delay)

    config = UpstreamConfig(base_url="http://127.0.0.1:9", api_key="k", max_retries=3)
    backend = HttpSearchBackend(config, sleep=sleep)  # no policy given: nothing private allowed
    with pytest.raises(UpstreamRefused, match="set TARGET_ALLOWED_NETWORKS"):
        await backend.search("q", "balanced", 5, 0, SearchFilters())
    await backend.aclose()
    assert slept == []
