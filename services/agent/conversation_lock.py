"""One turn at a time per conversation, across every agent replica.

A turn reads the conversation's checkpoint, runs the graph and writes a new checkpoint; two turns
of one conversation running at once (two replicas behind a load balancer, or a client that retries
too early) would both start from the same checkpoint, and the later write would drop the earlier
turn. Each turn therefore holds a Postgres advisory lock keyed by the conversation id, on a
connection of its own pool (the checkpointer's pool stays free for the graph's writes).

``lock_timeout`` bounds the wait: a turn that cannot get the lock within it is refused with
:class:`ConversationBusyError` and changes nothing. Session-level advisory locks outlive a
transaction, so the pool's ``reset`` releases any lock a connection still holds when it comes back.
"""

from __future__ import annotations

import asyncio
import hashlib
import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from psycopg import AsyncConnection
from psycopg.errors import LockNotAvailable
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from shared.db.session import plain_url
from shared.http.problem_details import ProblemError


class ConversationBusyError(ProblemError, RuntimeError):
    status_code = 409

    def __init__(self, conversation_id: str, waited_s: float) -> None:
        super().__init__(
            f"conversation {conversation_id!r} is still answering an earlier message "
            f"(waited {waited_s:.0f} s); send this one again once that reply has arrived"
        )


class AgentOverloadedError(ProblemError, RuntimeError):
    """Every connection of the lock pool is held by a running turn."""

    status_code = 503


def lock_key(conversation_id: str) -> int:
    """A signed 64-bit key (Postgres ``bigint``) derived from the conversation id."""
    digest = hashlib.blake2b(f"yardstick-conversation:{conversation_id}".encode(), digest_size=8)
    return int.from_bytes(digest.digest(), "big", signed=True)


async def _release_all(conn: AsyncConnection) -> None:
    await conn.execute("SELECT pg_advisory_unlock_all()")


class ConversationLocks:
    def __init__(self, pool: AsyncConnectionPool, wait_s: float) -> None:
        self._pool = pool
        self._wait_s = wait_s
        # In-process turns of one conversation queue here first, so they wait without a connection.
        self._local: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()

    @asynccontextmanager
    async def hold(self, conversation_id: str) -> AsyncIterator[None]:
        local = self._local.setdefault(conversation_id, asyncio.Lock())
        key = lock_key(conversation_id)
        async with local, self._connection() as conn:
            try:
                await conn.execute("SELECT pg_advisory_lock(%s)", (key,))
            except LockNotAvailable as exc:
                raise ConversationBusyError(conversation_id, self._wait_s) from exc
            try:
                yield
            finally:
                await conn.execute("SELECT pg_advisory_unlock(%s)", (key,))

    @asynccontextmanager
    async def _connection(self) -> AsyncIterator[AsyncConnection]:
        try:
            async with self._pool.connection(timeout=self._wait_s) as conn:
                yield conn
        except PoolTimeout as exc:
            raise AgentOverloadedError(
                f"the agent is already serving {self._pool.max_size} turns at once; try again shortly, "
                "or raise CHAT_CONCURRENT_TURNS"
            ) from exc


@asynccontextmanager
async def conversation_locks(
    database_url: str, wait_s: float, max_size: int
) -> AsyncIterator[ConversationLocks]:
    """:class:`ConversationLocks` on a pool of ``max_size`` connections (turns running at once)."""
    pool = AsyncConnectionPool(
        plain_url(database_url),
        min_size=1,
        max_size=max_size,
        open=False,
        reset=_release_all,
        kwargs={"autocommit": True, "options": f"-c lock_timeout={int(wait_s * 1000)}"},
    )
    await pool.open(wait=True, timeout=15)
    try:
        yield ConversationLocks(pool, wait_s)
    finally:
        await pool.close()
