"""Is PostgreSQL answering, and which server is it? One round trip with a short timeout, for /healthz.

With a multi-host ``DATABASE_URL`` the answer names the server the pool reached (``host:port`` as
PostgreSQL sees itself) and whether it is a primary, so /healthz tells which node a service uses
after a failover."""

from __future__ import annotations

import asyncio

from pydantic import BaseModel, Field
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

PROBE_TIMEOUT_S = 2.0
PROBE = text("SELECT host(inet_server_addr()), inet_server_port(), pg_is_in_recovery()")


class PostgresHealth(BaseModel):
    """What /healthz says about PostgreSQL."""

    problem: str | None = Field(default=None, description="None when it answered; else what went wrong")
    server: str | None = Field(
        default=None, description="host:port of the server that answered ('local socket' without TCP)"
    )
    primary: bool | None = Field(default=None, description="False on a standby (read-only)")

    @property
    def ok(self) -> bool:
        return self.problem is None


async def postgres_health(engine: AsyncEngine, timeout_s: float = PROBE_TIMEOUT_S) -> PostgresHealth:
    """Ask the pool's server who it is, within ``timeout_s``."""
    try:
        async with asyncio.timeout(timeout_s):
            async with engine.connect() as conn:
                host, port, in_recovery = (await conn.execute(PROBE)).one()
    except TimeoutError:
        return PostgresHealth(problem=f"PostgreSQL did not answer within {timeout_s:g}s")
    except Exception as exc:  # any driver error means: not usable now
        return PostgresHealth(problem=f"PostgreSQL unreachable: {type(exc).__name__}: {str(exc)[:200]}")
    server = f"{host}:{port}" if host else "local socket"
    return PostgresHealth(server=server, primary=not in_recovery)
