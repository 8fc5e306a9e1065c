"""Judge cache expiry: a verdict older than the store's ``max_age`` is not reused and is replaced by
the next verdict; :func:`prune_expired` deletes expired verdicts in batches and leaves fresh ones;
``JUDGE_CACHE_TTL_DAYS`` sets the age (0: never expires)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from shared.db.base import utcnow
from shared.db.judge_verdicts import JudgeCacheSettings, ProjectVerdicts, prune_expired
from shared.db.models import JudgeVerdictRow
from yardstick.api.evaluation import Evaluation

DAY = timedelta(days=1)
VERDICT = Evaluation(name="llm_rubric", value=0.75, comment="fine", metadata={"judge_model": "m"})


async def _age(sessions: async_sessionmaker[AsyncSession], keys: list[str], days: float) -> None:
    async with sessions() as session:
        await session.execute(
            update(JudgeVerdictRow)
            .where(JudgeVerdictRow.key.in_(keys))
            .values(created_at=utcnow() - timedelta(days=days))
        )
        await session.commit()


async def _count(sessions: async_sessionmaker[AsyncSession]) -> int:
    async with sessions() as session:
        return int(await session.scalar(select(func.count()).select_from(JudgeVerdictRow)) or 0)


@pytest.mark.integration
async def test_an_expired_verdict_is_not_reused_and_is_replaced(
    session_factory: async_sessionmaker[AsyncSession],
) -> None:
    store = ProjectVerdicts(session_factory, "default", max_age=30 * DAY)
    forever = ProjectVerdicts(session_factory, "default", max_age=None)
    key = "k" * 64
    await store.put(key, "llm_rubric", VERDICT)
    await _age(session_factory, [key], 29)
    assert await store.get(key) == VERDICT, "29 days old: still fresh"
    await store.put(key, "llm_rubric", VERDICT.model_copy(update={"value": 0.0}))
    assert await store.get(key) == VERDICT, "a fresh verdict is kept on a repeated write"

    await _age(session_factory, [key], 31)
    assert await store.get(key) is None, "31 days old: expired"
    assert await forever.get(key) == VERDICT, "without an age limit it is still there"
    newer = VERDICT.model_copy(update={"value": 0.25})
    await store.put(key, "llm_rubric", newer)
    assert await store.get(key) == newer, "the new verdict replaced the expired one"


@pytest.mark.integration
async def test_prune_deletes_only_expired_verdicts_in_batches(
    session_factory: async_sessionmaker[AsyncSession],
) -> None:
    store = ProjectVerdicts(session_factory, "default", max_age=None)
    keys = [f"{i:064d}" for i in range(7)]
    for key in keys:
        await store.put(key, "llm_rubric", VERDICT)
    await _age(session_factory, keys[:5], 40)
    assert await prune_expired(session_factory, None) == 0, "verdicts that never expire stay"
    assert await prune_expired(session_factory, 30 * DAY, batch=2) == 5
    assert await _count(session_factory) == 2
    assert [await store.get(k) for k in keys[5:]] == [VERDICT, VERDICT]
    assert await prune_expired(session_factory, 30 * DAY, batch=2) == 0


@pytest.mark.unit
def test_the_ttl_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("JUDGE_CACHE_TTL_DAYS", raising=False)
    assert JudgeCacheSettings().max_age == 30 * DAY
    monkeypatch.setenv("JUDGE_CACHE_TTL_DAYS", "0")
    assert JudgeCacheSettings().max_age is None
    monkeypatch.setenv("JUDGE_CACHE_TTL_DAYS", "1.5")
    assert JudgeCacheSettings().max_age == timedelta(days=1.5)
    monkeypatch.setenv("JUDGE_CACHE_TTL_DAYS", "-1")
    with pytest.raises(ValueError, match="judge_cache_ttl_days"):
        JudgeCacheSettings()
