"""The one async engine / session factory."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine

from shared.db.dsn import async_url, plain_url, sync_url

__all__ = ["async_url", "make_engine", "make_session_factory", "plain_url", "sync_url"]


def make_engine(url: str, *, pool_size: int = 5) -> AsyncEngine:
    """``pool_pre_ping``: a connection to a primary that has gone (failed over) is dropped and a new
    one is opened, to whichever host ``target_session_attrs`` accepts now."""
    return create_async_engine(async_url(url), pool_size=pool_size, max_overflow=10, pool_pre_ping=True)


def make_session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(engine, expire_on_commit=False)
