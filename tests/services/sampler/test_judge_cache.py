"""The sampler's judges use the judge cache of the turn's project: the same reply to the same
utterance in another conversation is judged once (against the bad-day provider counting requests)."""

from __future__ import annotations

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.sampler.turn_handler import TurnHandler
from shared.contracts.evaluation import EvaluatorSpec
from shared.contracts.projects import DEFAULT_PROJECT
from shared.db.models import OnlineScore
from shared.online.sampling_config import SamplingSettings, save_config
from tests.llm_provider import BadDayProvider, Reply, provider
from tests.services.sampler.turns import make_turn

pytestmark = pytest.mark.integration
__all__ = ["provider"]


async def test_the_same_turn_content_is_judged_once(
    session_factory: async_sessionmaker[AsyncSession], provider: BadDayProvider
) -> None:
    provider.fallback = Reply.json({"reason": "friendly", "friendliness": 5, "conciseness": 4})
    config = SamplingSettings(rate=1.0, evaluators=[EvaluatorSpec(name="drive_thru_tone")])
    async with session_factory() as session:
        await save_config(session, DEFAULT_PROJECT, config)
        await session.commit()
    handler = TurnHandler(session_factory)
    assert await handler.handle(make_turn("conv-1")) == "stored"
    assert len(provider.seen) == 1
    assert await handler.handle(make_turn("conv-2")) == "stored"
    assert len(provider.seen) == 1, "the second identical turn asked the judge again"
    async with session_factory() as session:
        scores = (await session.execute(select(OnlineScore).order_by(OnlineScore.id))).scalars().all()
    assert [s.value for s in scores] == [0.875, 0.875]
