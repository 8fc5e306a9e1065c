from __future__ import annotations

import asyncio

import pytest
from nats.aio.client import Client as NatsClient
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.sampler.sampling import in_sample
from shared.contracts.topology import SAMPLER_CONSUMER, Topology
from shared.db.models import OnlineSample, OnlineScore
from tests.services.sampler.consuming import consuming, set_rate
from tests.services.sampler.turns import make_turn

pytestmark = pytest.mark.integration

Sessions = async_sessionmaker[AsyncSession]
RATE = 0.3
TURNS = 300


async def test_turns_through_the_real_stream_are_sampled_deterministically(
    session_factory: Sessions, nats_client: NatsClient, topology: Topology
) -> None:
    await set_rate(session_factory, RATE)
    js = nats_client.jetstream()
    # junk first: it is settled (terminated) before the turns that the wait below counts
    await js.publish(topology.traffic_agent, b"not json", headers={"Nats-Msg-Id": "junk"})
    turns = [make_turn(f"stream-conv-{i}") for i in range(TURNS)]
    for turn in turns:
        await js.publish(
            topology.traffic_agent, turn.model_dump_json().encode(), headers={"Nats-Msg-Id": turn.msg_id}
        )
    # The same sampled turn again under a different message id: a redelivery the stream cannot dedupe.
    expected_ids = {t.conversation_id for t in turns if in_sample(t.conversation_id, RATE)}
    repeat = next(t for t in turns if t.conversation_id in expected_ids)
    await js.publish(
        topology.traffic_agent, repeat.model_dump_json().encode(), headers={"Nats-Msg-Id": "again"}
    )

    async with consuming(nats_client, topology, session_factory) as handler:
        await asyncio.wait_for(handler.wait_handled(TURNS + 1), 30.0)

    assert handler.outcomes["stored"] == len(expected_ids)
    assert handler.outcomes["duplicate"] == 1
    assert abs(len(expected_ids) / TURNS - RATE) < 0.1  # a few hundred turns: loose bound
    async with session_factory() as session:
        stored = set((await session.execute(select(OnlineSample.conversation_id))).scalars().all())
        scores = (await session.execute(select(func.count()).select_from(OnlineScore))).scalar_one()
    assert stored == expected_ids
    assert scores == 3 * len(expected_ids)
    info = await js.consumer_info(topology.traffic_stream, SAMPLER_CONSUMER)
    assert info.num_ack_pending == 0
