"""Distributions the web UI draws: an experiment's latency histogram, computed in PostgreSQL."""

from __future__ import annotations

from pydantic import BaseModel
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from shared.db.models import ExperimentItem


class Histogram(BaseModel):
    """``counts[i]`` values fall in [edges[i], edges[i + 1]) (the last bin includes its upper edge)."""

    edges: list[float]
    counts: list[int]


async def latency_histogram(session: AsyncSession, experiment_id: str, bins: int = 20) -> Histogram:
    item = ExperimentItem
    ok = (item.experiment_id == experiment_id, item.status == "ok", item.latency_ms.is_not(None))
    low, high = (
        await session.execute(select(func.min(item.latency_ms), func.max(item.latency_ms)).where(*ok))
    ).one()
    if low is None or high is None:
        return Histogram(edges=[], counts=[])
    low, high = float(low), float(high)
    if high <= low:
        return Histogram(edges=[low, low + 1.0], counts=[int(await _count(session, experiment_id))])
    width = (high - low) / bins
    bucket = func.least(func.width_bucket(item.latency_ms, low, high, bins), bins)
    rows = (await session.execute(select(bucket, func.count()).where(*ok).group_by(bucket))).all()
    counts = [0] * bins
    for index, n in rows:
        counts[int(index) - 1] = int(n)
    return Histogram(edges=[low + i * width for i in range(bins + 1)], counts=counts)


async def _count(session: AsyncSession, experiment_id: str) -> int:
    item = ExperimentItem
    stmt = select(func.count()).where(
        item.experiment_id == experiment_id, item.status == "ok", item.latency_ms.is_not(None)
    )
    return int((await session.execute(stmt)).scalar_one())
