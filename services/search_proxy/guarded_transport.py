"""The upstream search client's transport, guarded by the outbound policy
(``shared/http/outbound_guard.py``).

Each request's host is resolved once, here; every address must be allowed, and the request is then
sent to a checked address (its ``Host`` header, and for https the TLS server name, stay the host's).
So the address checked is the address connected to: a DNS answer that changes between the two
cannot slip past, and each redirect hop, should a client follow one, comes through here again.
"""

from __future__ import annotations

import httpx

from shared.http.outbound_guard import OutboundPolicy, Resolver, check_host, is_ip_literal, system_resolver

DEFAULT_PORTS = {"http": 80, "https": 443}


class GuardedTransport(httpx.AsyncBaseTransport):
    def __init__(
        self,
        policy: OutboundPolicy,
        resolve: Resolver = system_resolver,
        inner: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self._policy = policy
        self._resolve = resolve
        self._inner = inner if inner is not None else httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        host = request.url.host
        port = request.url.port or DEFAULT_PORTS.get(request.url.scheme, 0)
        try:
            addresses = await check_host(self._policy, host, port, self._resolve)
        except OSError as exc:  # the name does not resolve: a connection error like any other
            raise httpx.ConnectError(f"cannot resolve {host!r}: {exc}", request=request) from exc
        if is_ip_literal(host):
            return await self._inner.handle_async_request(request)
        last: httpx.ConnectError | None = None
        for address in addresses:
            try:
                return await self._inner.handle_async_request(_pinned(request, address))
            except httpx.ConnectError as exc:
                last = exc
        assert last is not None
        raise last

    async def aclose(self) -> None:
        await self._inner.aclose()


def _pinned(request: httpx.Request, address: str) -> httpx.Request:
    """``request`` sent to ``address``: the headers (``Host`` among them) are the original's."""
    extensions = dict(request.extensions)
    if request.url.scheme == "https":
        extensions.setdefault("sni_hostname", request.url.host)
    return httpx.Request(
        request.method,
        request.url.copy_with(host=address),
        headers=request.headers,
        stream=request.stream,
        extensions=extensions,
    )


def guarded_client(
    policy: OutboundPolicy, timeout_s: float, resolve: Resolver = system_resolver
) -> httpx.AsyncClient:
    """An ``AsyncClient`` whose every request goes through the guard. Proxies from the environment
    are not used (``trust_env=False``): through a proxy, the guard would check the proxy, not the
    upstream."""
    return httpx.AsyncClient(transport=GuardedTransport(policy, resolve), timeout=timeout_s, trust_env=False)
