from __future__ import annotations

import asyncio
import random
from datetime import UTC, datetime
from pathlib import Path

import pytest
from nats.aio.client import Client as NatsClient
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.agent.http_app import create_app as create_agent_app
from services.cli.traffic_cmd import (
    AgentNotFound,
    conversation_script,
    load_menu_items,
    resolve_agent_url,
    simulate,
)
from services.stack.state import StackState
from shared.contracts.topology import Topology
from shared.db.models import OnlineSample, OnlineScore
from tests.services.agent.app_client import running
from tests.services.agent.conftest import offline_settings
from tests.services.sampler.consuming import consuming, set_rate

ITEMS = load_menu_items()
NAMES = {item["name"] for item in ITEMS}


@pytest.mark.unit
def test_scripts_are_realistic_and_reproducible() -> None:
    first = [conversation_script(random.Random(7), ITEMS) for _ in range(3)]
    assert first == [conversation_script(random.Random(7), ITEMS) for _ in range(3)]
    rng = random.Random(1)
    for _ in range(200):
        script = conversation_script(rng, ITEMS)
        orders = script[1:-2]
        assert 1 <= len(orders) <= 3
        assert all(any(name in line for name in NAMES) for line in orders)
        assert script[-2].lower().startswith(("that's", "no, that's"))
        assert script[-1].lower().startswith(("yes", "yep"))


@pytest.mark.unit
def test_agent_url_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGENT_URL", raising=False)
    with pytest.raises(AgentNotFound, match="--agent-url"):
        resolve_agent_url(None, tmp_path)
    StackState(
        state_dir=str(tmp_path),
        nats_url="nats://x",
        database_url="postgresql://x",
        namespace="n",
        started_at=datetime.now(UTC),
        own_nats=False,
        own_postgres=False,
        agent_url="http://from-state",
    ).save()
    assert resolve_agent_url(None, tmp_path) == "http://from-state"
    monkeypatch.setenv("AGENT_URL", "http://from-env")
    assert resolve_agent_url(None, tmp_path) == "http://from-env"
    assert resolve_agent_url("http://given", tmp_path) == "http://given"


@pytest.mark.integration
@pytest.mark.timeout(120)
async def test_simulated_traffic_flows_through_the_agent_into_online_scores(
    database_url: str,
    nats_url: str,
    topology: Topology,
    nats_client: NatsClient,
    session_factory: async_sessionmaker[AsyncSession],
) -> None:
    settings = offline_settings(
        database_url=database_url, nats_url=nats_url, nats_namespace=topology.namespace
    )
    async with running(create_agent_app(settings)) as client:
        result = await simulate(client, 4, seed=3, items=ITEMS)
    assert result.errors == 0, result.error_messages
    assert result.conversations == 4 and result.turns_sent >= 4 * 4

    await set_rate(session_factory, 1.0)
    async with consuming(nats_client, topology, session_factory) as handler:
        await asyncio.wait_for(handler.wait_handled(result.turns_sent, "stored"), 30.0)
    async with session_factory() as session:
        samples = (await session.execute(select(OnlineSample))).scalars().all()
        scores = (await session.execute(select(OnlineScore))).scalars().all()
    assert len(samples) == result.turns_sent
    assert len({s.conversation_id for s in samples}) == 4
    by_name: dict[str, list[float | None]] = {}
    for score in scores:
        by_name.setdefault(score.name, []).append(score.value)
    assert set(by_name) == {"no_hallucinated_items", "tool_call_protocol", "finalize_after_confirmation"}
    assert all(v == 1.0 for v in by_name["no_hallucinated_items"])
    assert all(v == 1.0 for v in by_name["tool_call_protocol"])
