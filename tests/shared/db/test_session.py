"""The engine's pool: a connection idle for a while is pinged before use and replaced when dead; one
just used is handed out without a ping."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from sqlalchemy import text

from shared.db import session as db_session
from shared.db.session import make_engine, plain_url

pytestmark = pytest.mark.integration


async def test_a_dead_idle_connection_is_replaced_and_a_busy_one_is_not_pinged(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = make_engine(database_url, pool_size=1)
    pings: list[object] = []
    try:
        async with engine.connect() as conn:
            first_pid = await conn.scalar(text("SELECT pg_backend_pid()"))
            adapted: Any = type((await conn.get_raw_connection()).dbapi_connection)
        ping = adapted.ping

        def counted_ping(self: Any) -> None:
            pings.append(self)
            ping(self)

        monkeypatch.setattr(adapted, "ping", counted_ping)
        async with engine.connect() as conn:  # just checked in: no ping, the same backend
            assert await conn.scalar(text("SELECT pg_backend_pid()")) == first_pid
        assert pings == []

        with psycopg.connect(plain_url(database_url), autocommit=True) as killer:
            killer.execute("SELECT pg_terminate_backend(%s)", (first_pid,))
        monkeypatch.setattr(db_session, "PING_AFTER_IDLE_S", 0.0)  # the next checkout counts as idle
        async with engine.connect() as conn:  # the pooled one is dead: pinged, dropped, a new one
            second_pid = await conn.scalar(text("SELECT pg_backend_pid()"))
        assert pings and second_pid != first_pid
    finally:
        await engine.dispose()
