from __future__ import annotations

import asyncio
import random
from datetime import UTC, datetime
from pathlib import Path

import pytest
from nats.aio.client import Client as NatsClient
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.cli.traffic_cmd import (
    AgentNotFound,
    conversation_script,
    load_menu_items,
    resolve_agent_url,
)
from services.stack.state import StackState
from shared.db.api_keys import create_key_sync
from shared.db.trace_models import Trace, TraceScore
from tests.services.ingest.harness import SECRET, Ingest
from tests.services.sampler.agent_traces import agent_conversations, ingest, tracing_sampler  # noqa: F401
from tests.services.sampler.consuming import set_rate
from yardstick.api.roles import Role
from yardstick.api.topology import Topology

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
    ingest: Ingest,  # noqa: F811
) -> None:
    """The simulator's conversations, reported by the agent as traces, sampled and scored."""
    await set_rate(session_factory, 1.0)
    key = await asyncio.to_thread(create_key_sync, database_url, SECRET, "drive-thru agent", Role.INGEST)
    async with tracing_sampler(nats_client, topology, session_factory) as handler:
        result = await agent_conversations(database_url, nats_url, topology, ingest.url, key, 4, seed=3)
        assert result.conversations == 4 and result.turns_sent >= 4 * 4
        await asyncio.wait_for(handler.wait_handled(result.turns_sent, "stored"), 60.0)
    async with session_factory() as session:
        traces = (await session.execute(select(Trace))).scalars().all()
        scores = (await session.execute(select(TraceScore))).scalars().all()
    assert len(traces) == result.turns_sent
    assert len({t.conversation_id for t in traces}) == 4
    by_name: dict[str, list[float | None]] = {}
    for score in scores:
        by_name.setdefault(score.name, []).append(score.value)
    assert set(by_name) == {"no_hallucinated_items", "tool_call_protocol", "finalize_after_confirmation"}
    assert all(v == 1.0 for v in by_name["no_hallucinated_items"])
    assert all(v == 1.0 for v in by_name["tool_call_protocol"])
