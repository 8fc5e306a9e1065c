"""Whether a service's NATS and PostgreSQL connections work, set at scrape time."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from prometheus_client import Gauge
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from shared.metrics._exposition import Probe
from yardstick.api.nats_connection import ConnectionHealth

CONNECTION_UP = Gauge(
    "yardstick_connection_up",
    "1 when the service's connection to the server works now, 0 when not: nats from the client's "
    "connection state, postgres from a SELECT 1 at scrape time. Absent for a server the service "
    "does not use.",
    ["server"],
)
POSTGRES_PROBE_TIMEOUT_S = 2.0


def nats_probe(health: Callable[[], ConnectionHealth | None]) -> Probe:
    async def probe() -> None:
        current = health()
        if current is not None:
            CONNECTION_UP.labels("nats").set(1 if current.connected else 0)

    return probe


def postgres_probe(engine: Callable[[], AsyncEngine | None]) -> Probe:
    async def probe() -> None:
        current = engine()
        if current is None:
            return
        try:
            async with asyncio.timeout(POSTGRES_PROBE_TIMEOUT_S), current.connect() as conn:
                await conn.execute(text("SELECT 1"))
        except Exception:  # any driver error or the timeout: not usable now
            CONNECTION_UP.labels("postgres").set(0)
        else:
            CONNECTION_UP.labels("postgres").set(1)

    return probe
