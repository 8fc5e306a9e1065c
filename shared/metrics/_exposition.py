"""``GET /metrics`` for every service: the process's default registry in Prometheus text format.

Every service runs as one process (``shared.service.run_service``: one uvicorn server, no worker
processes) and scales by starting more processes, each scraped on its own: the default registry is
the whole story and prometheus-client's multiprocess mode is not needed. Values that live elsewhere
(JetStream consumer lag, whether PostgreSQL answers) are read by *probes* just before rendering, so
a scrape shows them as of now; a probe that fails or takes too long leaves its last values."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from fastapi import APIRouter, Response
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, generate_latest

log = logging.getLogger(__name__)

Probe = Callable[[], Awaitable[None]]
"""Refreshes some gauges from the outside world, called at each scrape."""

PROBE_TIMEOUT_S = 3.0


async def run_probes(probes: tuple[Probe, ...], timeout_s: float = PROBE_TIMEOUT_S) -> None:
    async def guarded(probe: Probe) -> None:
        try:
            async with asyncio.timeout(timeout_s):
                await probe()
        except Exception as exc:  # a scrape still answers with what is known
            log.warning("metrics probe failed", extra={"error": repr(exc)})

    await asyncio.gather(*(guarded(probe) for probe in probes))


def metrics_router(*probes: Probe) -> APIRouter:
    """``GET /metrics`` (no auth, like ``/healthz``: it carries counts, never content)."""
    router = APIRouter(tags=["health"])

    @router.get("/metrics", response_class=Response)
    async def metrics() -> Response:
        """Prometheus metrics of this process (text exposition format)."""
        await run_probes(probes)
        return Response(generate_latest(REGISTRY), media_type=CONTENT_TYPE_LATEST)

    return router
