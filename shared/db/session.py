"""The one async engine / session factory."""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import event
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine
from sqlalchemy.pool import ConnectionPoolEntry, Pool, PoolProxiedConnection

from shared.db.dsn import async_url, plain_url, sync_url

__all__ = ["async_url", "make_engine", "make_session_factory", "plain_url", "sync_url"]


PING_AFTER_IDLE_S = 1.0
"""A pooled connection idle longer than this is pinged before it is handed out."""


def make_engine(url: str, *, pool_size: int = 5) -> AsyncEngine:
    """A connection that sat idle in the pool is pinged when checked out: one to a server that has
    gone (restarted, failed over) is dropped and a new one is opened, to whichever host
    ``target_session_attrs`` accepts now. One used within the last second is not: a busy loop (the
    coordinator writes results and marks tasks dozens of times a second) would spend a round trip on
    each transaction proving what its last one just did (``pool_pre_ping`` cost about 7 % of the
    coordinator's CPU). If the server went away in that second, the statement fails with a
    disconnect, SQLAlchemy drops the pool's connections, and the caller retries as after any error."""
    engine = create_async_engine(async_url(url), pool_size=pool_size, max_overflow=10)
    _ping_when_idle(engine.sync_engine.pool)
    return engine


def _ping_when_idle(pool: Pool) -> None:
    def checked_in(dbapi_connection: Any, record: ConnectionPoolEntry) -> None:
        record.info["idle_since"] = time.monotonic()

    def checked_out(dbapi_connection: Any, record: ConnectionPoolEntry, proxy: PoolProxiedConnection) -> None:
        idle_since = record.info.get("idle_since")
        if idle_since is None or time.monotonic() - idle_since < PING_AFTER_IDLE_S:
            return  # new, or just used
        try:
            dbapi_connection.ping()
        except Exception as exc:  # the pool drops this connection and checks out another
            raise DisconnectionError(f"a pooled connection is dead: {exc}") from exc

    event.listen(pool, "checkin", checked_in)
    event.listen(pool, "checkout", checked_out)


def make_session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(engine, expire_on_commit=False)
