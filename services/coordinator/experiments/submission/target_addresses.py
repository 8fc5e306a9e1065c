"""May the eval workers call an http target's host? Asked at submission with the outbound guard
(``shared/http/outbound_guard.py``, ``TARGET_ALLOWED_NETWORKS`` as the workers read it), so that an
experiment aimed at loopback, a private network or the cloud metadata service is refused at once
with a 422 saying which address, why, and which setting allows it, instead of failing item by item.

This is the early answer, not the guard: the workers check every call and every redirect again,
since DNS can answer differently later. A name the coordinator cannot resolve (in time) is let
through for the same reason: the workers may see other DNS, and they decide at call time.
"""

from __future__ import annotations

import asyncio
from urllib.parse import urlsplit

from services.coordinator.errors import TargetAddressRefused
from shared.http.outbound_guard import OutboundPolicy, OutboundRefused, Resolver, check_host, system_resolver
from yardstick.api.eval_messages import HttpTarget, TargetSpec

RESOLVE_TIMEOUT_S = 2.0


async def require_allowed_address(
    policy: OutboundPolicy, target: TargetSpec, resolve: Resolver = system_resolver
) -> None:
    """``TargetAddressRefused`` if ``target`` is an http target whose host resolves to a refused address."""
    if not isinstance(target, HttpTarget):
        return
    host = urlsplit(target.url).hostname or ""  # the contract has checked there is one
    try:
        async with asyncio.timeout(RESOLVE_TIMEOUT_S):
            await check_host(policy, host, 0, resolve)
    except OutboundRefused as exc:
        raise TargetAddressRefused(f"http target {target.url}: {exc}") from None
    except (OSError, TimeoutError):
        return
