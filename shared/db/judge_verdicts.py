"""The judge cache in PostgreSQL: one project's measured verdicts (table ``judge_cache``).

:class:`ProjectVerdicts` is the :class:`~shared.evaluators.judge_cache.JudgeVerdictStore` of one
project, used by the eval workers and the sampler with unscoped sessions: every read and write
names the project, so a project never reads another's verdicts. A write is an upsert keeping the
first verdict (``ON CONFLICT DO NOTHING``): two workers judging the same content at once store one.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from shared.contracts.evaluation import Evaluation
from shared.db.models import JudgeVerdictRow


@dataclass(frozen=True)
class ProjectVerdicts:
    """The judge cache of ``project``."""

    sessions: async_sessionmaker[AsyncSession]
    project: str

    async def get(self, key: str) -> Evaluation | None:
        async with self.sessions() as session:
            found = await session.scalar(
                select(JudgeVerdictRow.verdict).where(
                    JudgeVerdictRow.project_id == self.project, JudgeVerdictRow.key == key
                )
            )
        return found

    async def put(self, key: str, judge: str, verdict: Evaluation) -> None:
        row = {"project_id": self.project, "key": key, "judge": judge[:200], "verdict": verdict}
        async with self.sessions() as session:
            await session.execute(insert(JudgeVerdictRow).values(**row).on_conflict_do_nothing())
            await session.commit()
