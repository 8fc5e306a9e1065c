"""Drift alerts as the API and the web UI read them (written by the sampler's drift check), and when
the first trace of a window was scored (the online page's automatic window)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from shared.db.models import DriftAlertRow
from shared.db.trace_models import TraceScore


async def recent_alerts(session: AsyncSession, limit: int) -> list[DriftAlertRow]:
    """The newest drift alerts, newest first."""
    stmt = select(DriftAlertRow).order_by(DriftAlertRow.created_at.desc()).limit(limit)
    return list((await session.execute(stmt)).scalars())


async def first_scored_since(session: AsyncSession, since: datetime) -> datetime | None:
    """When the first trace scored at or after ``since`` ran; None when none was."""
    stmt = select(func.min(TraceScore.trace_at)).where(TraceScore.trace_at >= since)
    return (await session.execute(stmt)).scalar_one()
