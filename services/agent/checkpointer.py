"""The chat API's durable LangGraph checkpointer: ``AsyncPostgresSaver`` on a psycopg pool."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from psycopg import AsyncConnection
from psycopg.rows import DictRow, dict_row
from psycopg_pool import AsyncConnectionPool

from shared.db.session import plain_url

_DOMAIN = "services.agent.domain"
_STATE_CLASSES = ("Menu", "Location", "Item", "Modifier", "Order", "Size", "CategoryName")
STATE_TYPES = [(_DOMAIN, name) for name in _STATE_CLASSES]


def state_serializer() -> JsonPlusSerializer:
    """Serializer that knows the state's pydantic models and enums (no "unregistered type")."""
    return JsonPlusSerializer(allowed_msgpack_modules=STATE_TYPES)


@asynccontextmanager
async def postgres_checkpointer(database_url: str, max_size: int = 10) -> AsyncIterator[AsyncPostgresSaver]:
    """An ``AsyncPostgresSaver`` with its tables set up; the pool closes on exit."""
    pool = AsyncConnectionPool(
        plain_url(database_url),
        connection_class=AsyncConnection[DictRow],
        min_size=1,
        max_size=max_size,
        open=False,
        kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
    )
    await pool.open(wait=True, timeout=15)
    try:
        saver = AsyncPostgresSaver(pool, serde=state_serializer())
        await saver.setup()
        yield saver
    finally:
        await pool.close()
