"""The one async engine / session factory."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine


def async_url(url: str) -> str:
    """Accept ``postgresql://`` (as pgserver prints it) and return the asyncpg flavour."""
    for prefix in ("postgresql+asyncpg://", "postgresql+psycopg://", "postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+asyncpg://" + url[len(prefix) :]
    raise ValueError(f"DATABASE_URL must be a postgresql:// URL, got {url.split(':', 1)[0]}://…")


def plain_url(url: str) -> str:
    """``postgresql://`` form for libraries that use psycopg / libpq (LangGraph's checkpointer)."""
    return "postgresql://" + async_url(url)[len("postgresql+asyncpg://") :]


def make_engine(url: str, *, pool_size: int = 5) -> AsyncEngine:
    return create_async_engine(async_url(url), pool_size=pool_size, max_overflow=10, pool_pre_ping=True)


def make_session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(engine, expire_on_commit=False)
