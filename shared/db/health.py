"""Is PostgreSQL answering? One round trip with a short timeout, for /healthz."""

from __future__ import annotations

import asyncio

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

PROBE_TIMEOUT_S = 2.0


async def postgres_problem(engine: AsyncEngine, timeout_s: float = PROBE_TIMEOUT_S) -> str | None:
    """None when ``SELECT 1`` answers within ``timeout_s``; else what went wrong, in words."""
    try:
        async with asyncio.timeout(timeout_s):
            async with engine.connect() as conn:
                await conn.execute(text("SELECT 1"))
    except TimeoutError:
        return f"PostgreSQL did not answer within {timeout_s:g}s"
    except Exception as exc:  # any driver error means: not usable now
        return f"PostgreSQL unreachable: {type(exc).__name__}: {str(exc)[:200]}"
    return None
