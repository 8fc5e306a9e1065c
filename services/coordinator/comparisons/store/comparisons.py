"""Stored comparisons: the newest one of a pair of runs, and deleting one."""

from __future__ import annotations

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from services.coordinator.errors import ComparisonNotFound
from shared.db.models import Comparison


async def delete_comparison(session: AsyncSession, comparison_id: str) -> None:
    result = await session.execute(delete(Comparison).where(Comparison.id == comparison_id))
    if not result.rowcount:  # type: ignore[attr-defined]
        raise ComparisonNotFound(f"comparison {comparison_id!r} not found")


async def latest_comparison(session: AsyncSession, baseline_id: str, candidate_id: str) -> Comparison | None:
    stmt = (
        select(Comparison)
        .where(Comparison.baseline_id == baseline_id, Comparison.candidate_id == candidate_id)
        .order_by(Comparison.created_at.desc())
        .limit(1)
    )
    return (await session.execute(stmt)).scalar_one_or_none()
