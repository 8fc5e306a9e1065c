from __future__ import annotations

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.sampler.turn_handler import TurnHandler
from shared.contracts.projects import DEFAULT_PROJECT
from shared.db.models import OnlineSample, OnlineScore
from shared.online.sampling_config import SamplingSettings, save_config
from tests.evaluator_registry import REGISTRY
from tests.services.sampler.turns import make_turn

pytestmark = pytest.mark.integration

Sessions = async_sessionmaker[AsyncSession]


async def _set_config(sessions: Sessions, config: SamplingSettings) -> None:
    async with sessions() as session:
        await save_config(session, DEFAULT_PROJECT, config)
        await session.commit()


async def _count(sessions: Sessions, model: type[OnlineSample] | type[OnlineScore]) -> int:
    async with sessions() as session:
        return int((await session.execute(select(func.count()).select_from(model))).scalar_one())


async def test_a_turn_handled_twice_is_stored_and_scored_once(session_factory: Sessions) -> None:
    await _set_config(session_factory, SamplingSettings(rate=1.0))
    handler = TurnHandler(session_factory)
    turn = make_turn("conv-dup")
    assert await handler.handle(turn) == "stored"
    assert await handler.handle(turn) == "duplicate"
    assert await _count(session_factory, OnlineSample) == 1
    async with session_factory() as session:
        scores = (await session.execute(select(OnlineScore))).scalars().all()
    assert sorted(s.name for s in scores) == [
        "finalize_after_confirmation",
        "no_hallucinated_items",
        "tool_call_protocol",
    ]
    by_name = {s.name: s for s in scores}
    assert by_name["no_hallucinated_items"].value == 1.0
    assert by_name["tool_call_protocol"].value == 1.0
    assert all(s.model == "offline:ask" and s.prompt_version == "v1" for s in scores)
    assert all(s.evaluator_version == REGISTRY.get(s.name).version for s in scores)


async def test_previous_response_comes_from_memory_or_the_stored_sample(session_factory: Sessions) -> None:
    await _set_config(session_factory, SamplingSettings(rate=1.0))
    first = make_turn("conv-prev", 0)
    await TurnHandler(session_factory).handle(first)
    fresh = TurnHandler(session_factory)  # a restarted sampler: empty LRU, falls back to Postgres
    async with session_factory() as session:
        assert await fresh.previous.lookup(session, "conv-prev", 1) == first.response
        assert await fresh.previous.lookup(session, "conv-prev", 0) is None
        fresh.previous.remember("conv-prev", 1, "in memory")
        assert await fresh.previous.lookup(session, "conv-prev", 2) == "in memory"


async def test_config_change_takes_effect_without_restart(session_factory: Sessions) -> None:
    await _set_config(session_factory, SamplingSettings(rate=0.0))
    handler = TurnHandler(session_factory, refresh_s=3600.0)
    assert await handler.handle(make_turn("conv-a")) == "not_sampled"
    await _set_config(session_factory, SamplingSettings(rate=1.0))
    handler.invalidate()  # what the refresh interval does on its own; tested without waiting on time
    assert await handler.handle(make_turn("conv-b")) == "stored"


async def test_config_is_reread_after_the_refresh_interval(session_factory: Sessions) -> None:
    await _set_config(session_factory, SamplingSettings(rate=0.0))
    handler = TurnHandler(session_factory, refresh_s=0.0)
    assert await handler.handle(make_turn("conv-a")) == "not_sampled"
    await _set_config(session_factory, SamplingSettings(rate=1.0))
    assert await handler.handle(make_turn("conv-b")) == "stored"
