"""The judge cache in PostgreSQL: one project's measured verdicts (table ``judge_cache``).

:class:`ProjectVerdicts` is the :class:`~shared.evaluators.judge_cache.JudgeVerdictStore` of one
project, used by the eval workers, the sampler and the coordinator's pairwise judging with unscoped
sessions: every read and write names the project, so a project never reads another's verdicts. A
write is an upsert keeping the first verdict (``ON CONFLICT DO NOTHING``): two workers judging the
same content at once store one; an expired verdict is replaced.

Verdicts expire: one older than ``JUDGE_CACHE_TTL_DAYS`` (default 30; 0: never) is not reused (the
judge is asked again and the new verdict replaces it), and :func:`prune_expired` deletes expired
rows in batches (the coordinator runs it every ``JUDGE_CACHE_PRUNE_INTERVAL_S``). A hosted model
behind an unchanged name changes over time; a month bounds how stale a reused verdict can be.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict
from sqlalchemy import delete, select, tuple_
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from shared.db.base import utcnow
from shared.db.models import JudgeVerdictRow
from yardstick.api.evaluation import Evaluation

PRUNE_BATCH = 1000
"""Expired verdicts deleted per statement (short transactions, no long lock on the table)."""


class JudgeCacheSettings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    judge_cache_ttl_days: float = Field(
        default=30.0,
        ge=0,
        description="A verdict older than this many days is not reused and is pruned; 0: never expires",
    )

    @property
    def max_age(self) -> timedelta | None:
        return timedelta(days=self.judge_cache_ttl_days) if self.judge_cache_ttl_days else None


def configured_max_age() -> timedelta | None:
    return JudgeCacheSettings().max_age


def _cutoff(max_age: timedelta | None) -> datetime | None:
    return None if max_age is None else utcnow() - max_age


@dataclass(frozen=True)
class ProjectVerdicts:
    """The judge cache of ``project``; verdicts older than ``max_age`` count as absent."""

    sessions: async_sessionmaker[AsyncSession]
    project: str
    max_age: timedelta | None = field(default_factory=configured_max_age)

    async def get(self, key: str) -> Evaluation | None:
        stmt = select(JudgeVerdictRow.verdict).where(
            JudgeVerdictRow.project_id == self.project, JudgeVerdictRow.key == key
        )
        cutoff = _cutoff(self.max_age)
        if cutoff is not None:
            stmt = stmt.where(JudgeVerdictRow.created_at > cutoff)
        async with self.sessions() as session:
            found = await session.scalar(stmt)
        return found

    async def put(self, key: str, judge: str, verdict: Evaluation) -> None:
        row = {"project_id": self.project, "key": key, "judge": judge[:200], "verdict": verdict}
        stmt = insert(JudgeVerdictRow).values(**row, created_at=utcnow())
        cutoff = _cutoff(self.max_age)
        if cutoff is None:
            upsert = stmt.on_conflict_do_nothing()
        else:  # an expired verdict is replaced by the new one; a fresh one stays
            upsert = stmt.on_conflict_do_update(
                index_elements=[JudgeVerdictRow.project_id, JudgeVerdictRow.key],
                set_={"verdict": stmt.excluded.verdict, "judge": stmt.excluded.judge, "created_at": utcnow()},
                where=JudgeVerdictRow.created_at <= cutoff,
            )
        async with self.sessions() as session:
            await session.execute(upsert)
            await session.commit()


async def prune_expired(
    sessions: async_sessionmaker[AsyncSession], max_age: timedelta | None, batch: int = PRUNE_BATCH
) -> int:
    """Delete verdicts older than ``max_age`` (all projects), ``batch`` rows per transaction; the
    number deleted. Nothing when verdicts never expire."""
    cutoff = _cutoff(max_age)
    if cutoff is None:
        return 0
    deleted = 0
    while True:
        expired = (
            select(JudgeVerdictRow.project_id, JudgeVerdictRow.key)
            .where(JudgeVerdictRow.created_at <= cutoff)
            .limit(batch)
        )
        stmt = delete(JudgeVerdictRow).where(
            tuple_(JudgeVerdictRow.project_id, JudgeVerdictRow.key).in_(expired)
        )
        async with sessions() as session:
            result = await session.execute(stmt)
            await session.commit()
        count = int(result.rowcount or 0)  # type: ignore[attr-defined]
        deleted += count
        if count < batch:
            return deleted
