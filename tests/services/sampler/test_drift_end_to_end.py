"""End to end on the real stack: the agent's chat API ← traffic simulator; the agent's turns as
OpenTelemetry traces → the ingest service (OTLP/HTTP) → ``traffic.spans`` → sampler → Postgres;
drift check.

Two phases of simulated conversations, each against its own agent app instance: the first with the
unchanged offline model, the second either unchanged (control) or with ``simulate_silent_drift``
(the same model identity finalizes without the read-back). The drift check's window and "now" are
computed from the wall-clock boundaries recorded around the phases, so the previous window holds
exactly the first phase's traces and the recent window the second's (``TraceScore.trace_at`` is the
turn's root span start, taken with the same clock in this process).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest
from nats.aio.client import Client as NatsClient
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.sampler.drift_monitor import run_drift_check
from shared.db.api_keys import create_key_sync
from shared.db.models import DriftAlertRow
from shared.db.trace_models import TraceScore
from tests.services.ingest.harness import SECRET, Ingest
from tests.services.sampler.agent_traces import agent_conversations, ingest, tracing_sampler  # noqa: F401
from tests.services.sampler.consuming import set_rate
from yardstick.api.agent_messages import OfflineBehaviour
from yardstick.api.experiment_events import DriftAlert
from yardstick.api.roles import Role
from yardstick.api.topology import Topology

pytestmark = [pytest.mark.integration, pytest.mark.timeout(240)]

Sessions = async_sessionmaker[AsyncSession]
CONVERSATIONS = 12  # per phase
MARGIN = timedelta(milliseconds=1)
APPLICATION = "drive-thru"


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


async def _traffic(
    database_url: str,
    nats_url: str,
    topology: Topology,
    nats_client: NatsClient,
    sessions: Sessions,
    ingest: Ingest,  # noqa: F811
    second: OfflineBehaviour,
) -> Phases:
    """Both phases through the real ingest and sampler (rate 1.0); returns once every turn's trace
    is stored and scored."""
    await set_rate(sessions, 1.0)
    key = await asyncio.to_thread(create_key_sync, database_url, SECRET, "drive-thru agent", Role.INGEST)

    async def phase(seed: int, behaviour: OfflineBehaviour) -> int:
        result = await agent_conversations(
            database_url, nats_url, topology, ingest.url, key, CONVERSATIONS, seed=seed, behaviour=behaviour
        )
        return result.turns_sent

    async with tracing_sampler(nats_client, topology, sessions) as handler:
        start = datetime.now(UTC)
        turns = await phase(1, OfflineBehaviour())
        boundary = datetime.now(UTC)
        turns += await phase(2, second)
        end = datetime.now(UTC)
        await asyncio.wait_for(handler.wait_handled(turns, "stored"), 60.0)
    assert handler.outcomes["stored"] == turns, handler.outcomes
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
                select(TraceScore.name, func.avg(TraceScore.value))
                .where(TraceScore.trace_at >= lo, TraceScore.trace_at < hi)
                .group_by(TraceScore.name)
            )
            for name, mean in (await session.execute(stmt)).all():
                means[(name, label)] = float(mean)
    return means


async def test_a_silent_model_change_raises_a_drift_alert(
    database_url: str,
    nats_url: str,
    topology: Topology,
    nats_client: NatsClient,
    session_factory: Sessions,
    ingest: Ingest,  # noqa: F811
) -> None:
    drifted = OfflineBehaviour(simulate_silent_drift=True)
    phases = await _traffic(database_url, nats_url, topology, nats_client, session_factory, ingest, drifted)
    window, now = phases.window()
    js = nats_client.jetstream()
    sub = await js.subscribe(topology.alerts, stream=topology.alerts_stream)

    alerts = await run_drift_check(session_factory, js, topology, window=window, now=now)

    means = await _window_means(session_factory, phases)
    keys = [(a.evaluator, a.model, a.application, a.reference) for a in alerts]
    assert keys == [("finalize_after_confirmation", "offline:ask", APPLICATION, "previous_window")], (
        keys,
        means,
    )
    alert = alerts[0]
    assert alert.reference_mean == 1.0 and alert.window_mean < 0.9 and alert.p_value < 0.01, alert
    assert alert.window_start == now - window and alert.window_end == now
    msg = await sub.next_msg(timeout=5.0)
    published = DriftAlert.model_validate_json(msg.data)
    assert published.alert_id == alert.alert_id
    assert (published.evaluator, published.model, published.application, published.reference) == keys[0]
    async with session_factory() as session:
        rows = (await session.execute(select(DriftAlertRow))).scalars().all()
        scored = await session.execute(
            select(func.count()).where(TraceScore.name == "finalize_after_confirmation")
        )
        total = scored.scalar_one()
    assert [(r.id, r.evaluator, r.model, r.application, r.reference) for r in rows] == [
        (alert.alert_id, *keys[0])
    ]
    # the two windows together hold every scored turn of both phases
    assert rows[0].detail["window_n"] + rows[0].detail["reference_n"] == total


async def test_an_unchanged_agent_raises_no_drift_alert(
    database_url: str,
    nats_url: str,
    topology: Topology,
    nats_client: NatsClient,
    session_factory: Sessions,
    ingest: Ingest,  # noqa: F811
) -> None:
    phases = await _traffic(
        database_url, nats_url, topology, nats_client, session_factory, ingest, OfflineBehaviour()
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
                    TraceScore.name == "finalize_after_confirmation",
                    TraceScore.trace_at >= lo,
                    TraceScore.trace_at < hi,
                )
            )
            assert scored.scalar_one() >= 4 * CONVERSATIONS
