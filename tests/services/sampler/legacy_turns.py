"""Sampled turns as they were stored before traces (``online_samples`` and their ``online_scores``)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from shared.db.models import OnlineSample, OnlineScore


async def add_scored_turn(
    session: AsyncSession,
    *,
    conversation_id: str,
    turn_at: datetime,
    name: str,
    value: float,
    model: str = "offline:ask",
    prompt_version: str = "v1",
) -> None:
    """One sampled turn with one score (the caller commits)."""
    sample = OnlineSample(
        conversation_id=conversation_id,
        turn_index=0,
        model=model,
        prompt_version=prompt_version,
        turn={},
        turn_at=turn_at,
    )
    session.add(sample)
    await session.flush()
    session.add(
        OnlineScore(
            sample_id=sample.id,
            name=name,
            value=value,
            model=model,
            prompt_version=prompt_version,
            turn_at=turn_at,
        )
    )
