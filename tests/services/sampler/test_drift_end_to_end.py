"""End to end on the real stack: agent chat API ← traffic simulator; sampler → Postgres; drift check.

Two phases of simulated conversations, each against its own agent app instance: the first with the
unchanged offline model, the second either unchanged (control) or with ``simulate_silent_drift``
(the same model identity finalizes without the read-back). The drift check's window and "now" are
computed from the wall-clock boundaries recorded around the phases, so the previous window holds
exactly the first phase's turns and the recent window the second's (``OnlineScore.turn_at`` is the
agent's ``TrafficTurn.timestamp``, taken with the same clock in this process).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest
from nats.aio.client import Client as NatsClient
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.agent.http_app import create_app as create_agent_app
from services.cli.traffic_cmd import load_menu_items, simulate
from services.sampler.drift_monitor import run_drift_check
from shared.contracts.agent_messages import OfflineBehaviour
from shared.contracts.experiment_events import DriftAlert
from shared.contracts.topology import Topology
from shared.db.models import DriftAlertRow, OnlineScore
from tests.services.agent.app_client import running
from tests.services.agent.conftest import offline_settings
from tests.services.sampler.consuming import consuming, set_rate

pytestmark = [pytest.mark.integration, pytest.mark.timeout(60)]

Sessions = async_sessionmaker[AsyncSession]
CONVERSATIONS = 12  # per phase
ITEMS = load_menu_items()
MARGIN = timedelta(milliseconds=1)


@dataclass(frozen=True)
class Phases:
    """Wall-clock marks: before the first phase, between the phases, after the second phase."""

    start: datetime
    boundary: datetime
    end: datetime

    def window(self) -> tuple[timedelta, datetime]:
        """``(window, now)`` with previous = [now-2w, now-w) ⊇ phase one, recent = [now-w, now) ⊇ two."""
        width = max(self.boundary - self.start, self.end - self.boundary) + MARGIN
        return width, self.boundary + width


async def _phase(
    database_url: str, nats_url: str, topology: Topology, behaviour: OfflineBehaviour, seed: int
) -> int:
    """Run one agent app instance with ``behaviour`` and the simulator against it; return turns sent."""
    settings = offline_settings(
        database_url=database_url,
        nats_url=nats_url,
        nats_namespace=topology.namespace,
        chat_offline=behaviour,
    )
    async with running(create_agent_app(settings)) as client:
        result = await simulate(client, CONVERSATIONS, seed=seed, items=ITEMS)
    assert result.errors == 0, result.error_messages
    assert result.conversations == CONVERSATIONS
    return result.turns_sent


async def _traffic(
    database_url: str,
    nats_url: str,
    topology: Topology,
    nats_client: NatsClient,
    sessions: Sessions,
    second: OfflineBehaviour,
) -> Phases:
    """Both phases through the real sampler (rate 1.0); returns once every turn is stored and scored."""
    await set_rate(sessions, 1.0)
    async with consuming(nats_client, topology, sessions) as handler:
        start = datetime.now(UTC)
        turns = await _phase(database_url, nats_url, topology, OfflineBehaviour(), seed=1)
        boundary = datetime.now(UTC)
        turns += await _phase(database_url, nats_url, topology, second, seed=2)
        end = datetime.now(UTC)
        await asyncio.wait_for(handler.wait_handled(turns, "stored"), 30.0)
    return Phases(start=start, boundary=boundary, end=end)


async def _window_means(sessions: Sessions, phases: Phases) -> dict[tuple[str, str], float]:
    """Mean score per (evaluator, window) — for failure messages."""
    means: dict[tuple[str, str], float] = {}
    async with sessions() as session:
        for label, lo, hi in (
            ("previous", phases.start, phases.boundary),
            ("recent", phases.boundary, phases.end),
        ):
            stmt = (
                select(OnlineScore.name, func.avg(OnlineScore.value))
                .where(OnlineScore.turn_at >= lo, OnlineScore.turn_at < hi)
                .group_by(OnlineScore.name)
            )
            for name, mean in (await session.execute(stmt)).all():
                means[(name, label)] = float(mean)
    return means


async def test_a_silent_model_change_raises_a_drift_alert(
    database_url: str, nats_url: str, topology: Topology, nats_client: NatsClient, session_factory: Sessions
) -> None:
    drifted = OfflineBehaviour(simulate_silent_drift=True)
    phases = await _traffic(database_url, nats_url, topology, nats_client, session_factory, drifted)
    window, now = phases.window()
    js = nats_client.jetstream()
    sub = await js.subscribe(topology.alerts, stream=topology.alerts_stream)

    alerts = await run_drift_check(session_factory, js, topology, window=window, now=now)

    means = await _window_means(session_factory, phases)
    keys = [(a.evaluator, a.model, a.reference) for a in alerts]
    assert keys == [("finalize_after_confirmation", "offline:ask", "previous_window")], (keys, means)
    alert = alerts[0]
    assert alert.reference_mean == 1.0 and alert.window_mean < 0.9 and alert.p_value < 0.01, alert
    assert alert.window_start == now - window and alert.window_end == now
    msg = await sub.next_msg(timeout=5.0)
    published = DriftAlert.model_validate_json(msg.data)
    assert published.alert_id == alert.alert_id
    assert (published.evaluator, published.model, published.reference) == keys[0]
    async with session_factory() as session:
        rows = (await session.execute(select(DriftAlertRow))).scalars().all()
        scored = await session.execute(
            select(func.count()).where(OnlineScore.name == "finalize_after_confirmation")
        )
        total = scored.scalar_one()
    assert [(r.id, r.evaluator, r.model, r.reference) for r in rows] == [(alert.alert_id, *keys[0])]
    # the two windows together hold every scored turn of both phases
    assert rows[0].detail["window_n"] + rows[0].detail["reference_n"] == total


async def test_an_unchanged_agent_raises_no_drift_alert(
    database_url: str, nats_url: str, topology: Topology, nats_client: NatsClient, session_factory: Sessions
) -> None:
    phases = await _traffic(
        database_url, nats_url, topology, nats_client, session_factory, OfflineBehaviour()
    )
    window, now = phases.window()
    js = nats_client.jetstream()

    alerts = await run_drift_check(session_factory, js, topology, window=window, now=now)

    assert alerts == [], await _window_means(session_factory, phases)
    assert (await js.stream_info(topology.alerts_stream)).state.messages == 0
    async with session_factory() as session:
        assert (await session.execute(select(func.count(DriftAlertRow.id)))).scalar_one() == 0
        # both windows were populated: the absence of an alert is a comparison, not an empty window
        for lo, hi in ((phases.start, phases.boundary), (phases.boundary, phases.end)):
            scored = await session.execute(
                select(func.count()).where(
                    OnlineScore.name == "finalize_after_confirmation",
                    OnlineScore.turn_at >= lo,
                    OnlineScore.turn_at < hi,
                )
            )
            assert scored.scalar_one() >= 4 * CONVERSATIONS
