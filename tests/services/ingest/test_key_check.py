"""Who may send traffic: checked against the api_keys table, once per burst, cached briefly."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.ingest import key_check
from services.ingest.errors import Forbidden, Unauthorized
from services.ingest.key_check import KeyChecker
from shared.db.api_keys import create_key_sync
from shared.db.models import Project
from tests.services.ingest.harness import SECRET
from yardstick.api.roles import Role

pytestmark = pytest.mark.integration


async def test_a_burst_asks_postgres_once_and_roles_are_enforced(
    database_url: str, session_factory: async_sessionmaker[AsyncSession], monkeypatch: pytest.MonkeyPatch
) -> None:
    ingest = create_key_sync(database_url, SECRET, "app", Role.INGEST)
    viewer = create_key_sync(database_url, SECRET, "viewer", Role.VIEWER)
    lookups: list[str] = []
    real = key_check.verify_key

    async def counting(session: AsyncSession, secret: str, key: str) -> Any:
        lookups.append(key)
        return await real(session, secret, key)

    monkeypatch.setattr(key_check, "verify_key", counting)
    checker = KeyChecker(session_factory, SECRET, cache_s=60)
    callers = await asyncio.gather(*(checker.caller(f"Bearer {ingest}") for _ in range(20)))
    assert {c.project_id for c in callers} == {"default"} and len(lookups) == 1
    await checker.caller(f"bearer {ingest}")
    assert len(lookups) == 1  # cached
    with pytest.raises(Forbidden, match="needs the ingest role"):
        await checker.caller(f"Bearer {viewer}")
    with pytest.raises(Unauthorized, match="invalid, expired or revoked"):
        await checker.caller("Bearer ys_unknown")
    with pytest.raises(Unauthorized, match="missing API key"):
        await checker.caller("Basic abc")


async def test_an_ingest_key_sends_to_its_own_project(
    database_url: str, session_factory: async_sessionmaker[AsyncSession]
) -> None:
    async with session_factory() as session:
        session.add(Project(id="checkout-bot"))
        await session.commit()
    app_key = create_key_sync(database_url, SECRET, "app", Role.INGEST, project="checkout-bot")
    caller = await KeyChecker(session_factory, SECRET, cache_s=60).caller(f"Bearer {app_key}")
    assert caller.project_id == "checkout-bot"
