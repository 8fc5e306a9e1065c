from __future__ import annotations

from datetime import timedelta

import pytest
from nats.aio.client import Client as NatsClient
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.sampler.drift_monitor import run_drift_check
from tests.services.sampler.test_drift import NOW, WINDOW, _offline_experiment, _scores
from yardstick.api.experiment_events import DriftAlert
from yardstick.api.topology import Topology

pytestmark = pytest.mark.integration


async def test_alerts_are_published_on_the_alerts_subject(
    session_factory: async_sessionmaker[AsyncSession], nats_client: NatsClient, topology: Topology
) -> None:
    async with session_factory() as session:
        await _offline_experiment(session, mean=1.0)
        await session.commit()
    await _scores(session_factory, [0.0] * 10, NOW - WINDOW, 0)
    js = nats_client.jetstream()
    sub = await js.subscribe(topology.alerts, stream=topology.alerts_stream)
    alerts = await run_drift_check(session_factory, js, topology, window=WINDOW, now=NOW)
    assert [a.reference for a in alerts] == ["offline"]
    msg = await sub.next_msg(timeout=5.0)
    published = DriftAlert.model_validate_json(msg.data)
    assert published.alert_id == alerts[0].alert_id
    assert published.window_mean == 0.0
    # the same condition 30 s later: stored once, published once
    later = NOW + timedelta(seconds=30)
    assert await run_drift_check(session_factory, js, topology, window=WINDOW, now=later) == []
