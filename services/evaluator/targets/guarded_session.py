"""The worker's one aiohttp session for ``http`` targets, guarded by the outbound policy
(``shared/http/outbound_guard.py``) on every hop of every call:

- a host name is checked where it becomes addresses, in the connector's resolver
  (:class:`GuardedResolver`): whatever DNS answers at call time, and for every redirect hop;
- an IP literal (``http://127.0.0.1/``, ``http://[::ffff:127.0.0.1]/``) never reaches the resolver
  (aiohttp connects to it directly), so :func:`refuse_literal_addresses`, a client middleware that
  aiohttp runs for the first request and for each redirect, checks it.

A refusal raises :class:`~shared.http.outbound_guard.OutboundRefused` out of the request.
"""

from __future__ import annotations

import socket

import aiohttp
from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.client_middlewares import ClientHandlerType, ClientMiddlewareType

from shared.http.outbound_guard import OutboundPolicy, OutboundRefused, is_ip_literal


class GuardedResolver(AbstractResolver):
    """Resolves with ``inner`` (aiohttp's default resolver unless given), then refuses the whole
    answer if any address is one the policy refuses."""

    def __init__(self, policy: OutboundPolicy, inner: AbstractResolver | None = None) -> None:
        self._policy = policy
        self._inner = inner if inner is not None else aiohttp.DefaultResolver()

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        results = await self._inner.resolve(host, port, family)
        for result in results:
            self._policy.require(result["host"], host=host)
        return results

    async def close(self) -> None:
        await self._inner.close()


REMEMBERED_HOSTS = 1024
"""Verdicts kept per session (a worker calls few hosts); past this many the memory starts over."""


def refuse_literal_addresses(policy: OutboundPolicy) -> ClientMiddlewareType:
    """A middleware refusing a request (first or redirected) whose URL host is a refused address.

    The verdict for a host is remembered: parsing an address costs more than the rest of the
    middleware (about 7 % of a worker's CPU at zero target latency), and neither the host string nor
    the policy changes between calls."""
    verdicts: dict[str, str | None] = {}  # host -> why it is refused, or None (allowed, or a name)

    async def middleware(
        request: aiohttp.ClientRequest, handler: ClientHandlerType
    ) -> aiohttp.ClientResponse:
        host = request.url.raw_host
        if host is not None:
            if host not in verdicts:
                if len(verdicts) >= REMEMBERED_HOSTS:
                    verdicts.clear()
                verdicts[host] = policy.refusal(host) if is_ip_literal(host) else None
            if (refused := verdicts[host]) is not None:
                raise OutboundRefused(refused)
        return await handler(request)

    return middleware


def new_session(
    concurrency: int, policy: OutboundPolicy, resolver: AbstractResolver | None = None
) -> aiohttp.ClientSession:
    """One session per worker process, its pool as large as the tasks it runs at once; ``resolver``
    (the system's by default) is what the guard asks, so tests can stub DNS."""
    return aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(
            limit=concurrency,
            limit_per_host=concurrency,
            resolver=GuardedResolver(policy, resolver),
        ),
        middlewares=(refuse_literal_addresses(policy),),
    )
