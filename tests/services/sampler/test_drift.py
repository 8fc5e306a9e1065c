from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.sampler.drift import check_drift
from shared.db.models import Dataset, DatasetVersion, DriftAlertRow, Experiment
from shared.db.trace_models import Trace, TraceScore
from shared.online.metrics import TRACE_PROMPT_VERSION
from tests.services.sampler.test_trace_store import configure as configure_traces
from tests.services.sampler.test_trace_store import handler as trace_handler
from tests.services.sampler.test_trace_store import part
from yardstick.api.agent_messages import ModelConfig
from yardstick.api.eval_messages import AgentTarget
from yardstick.api.experiment_config import ExperimentConfig
from yardstick.api.run_aggregates import ExperimentAggregates, LatencyStats, MetricAggregate
from yardstick.api.trace_record import Completeness

pytestmark = pytest.mark.integration

Sessions = async_sessionmaker[AsyncSession]
NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
WINDOW = timedelta(hours=1)
EVALUATOR = "tool_called"  # what test_trace_store configures: 1 for lookup_order, else 0
MODEL = "offline:ask"  # the offline experiment's agent


def aggregates_of(metric: str, *, mean: float, sd: float, count: int) -> ExperimentAggregates:
    """Stored aggregates in which only ``metric``'s summary matters."""
    return ExperimentAggregates(
        experiment_id="x",
        name="baseline",
        item_count=count,
        ok_count=count,
        error_count=0,
        error_rate=0.0,
        pass_threshold=0.5,
        passed=count,
        pass_rate=1.0,
        metrics={
            metric: MetricAggregate(
                mean=mean, median=None, p95=None, sd=sd, ci_low=None, ci_high=None, count=count, none_count=0
            )
        },
        breakdowns={},
        latency=LatencyStats(count=0),
        tokens=None,
        run_scores=[],
    )


async def _offline_experiment(session: AsyncSession, mean: float) -> None:
    dataset = Dataset(name="drive-thru")
    session.add(dataset)
    await session.flush()
    version = DatasetVersion(dataset_id=dataset.id, version=1, content_hash="x", item_count=40, source="t")
    session.add(version)
    await session.flush()
    session.add(
        Experiment(
            name="baseline",
            dataset_id=dataset.id,
            version_id=version.id,
            status="completed",
            config=ExperimentConfig(target=AgentTarget(), evaluators=[]),
            aggregates=aggregates_of(EVALUATOR, mean=mean, sd=0.15, count=40),
            completed_at=NOW - timedelta(days=1),
        )
    )


async def _scores(sessions: Sessions, values: list[float], start: datetime, first: int) -> None:
    """One trace of :data:`MODEL` per value (0 or 1) through the sampler, 10 s apart from ``start``,
    numbered from ``first``: its :data:`EVALUATOR` score is the value."""
    await configure_traces(sessions, rate=1.0)
    h = trace_handler(sessions)
    for i, value in enumerate(values):
        at = start + timedelta(seconds=10 * i)
        tool = "lookup_order" if value == 1.0 else "refund"
        stored = await h.handle(
            part(first + i, [0, 1, 2, 3], Completeness.ROOT_ENDED, model=MODEL, tool=tool, at=at)
        )
        assert stored == "stored"


async def test_a_synthetic_degradation_raises_alerts_once(session_factory: Sessions) -> None:
    async with session_factory() as session:
        await _offline_experiment(session, mean=0.98)
        await session.commit()
    await _scores(session_factory, [1.0] * 30, NOW - 2 * WINDOW, 0)
    await _scores(session_factory, [0.0] * 30, NOW - WINDOW, 100)
    async with session_factory() as session:
        alerts = await check_drift(session, window=WINDOW, now=NOW)
        await session.commit()
    assert {a.reference for a in alerts} == {"offline", "previous_window"}
    for alert in alerts:
        assert (alert.evaluator, alert.model, alert.application) == (EVALUATOR, MODEL, "support-bot")
        assert alert.prompt_version == TRACE_PROMPT_VERSION
        assert alert.window_mean == 0.0 and alert.delta < -0.9 and alert.p_value < 0.01
        assert alert.alert_id
    async with session_factory() as session:
        rows = (await session.execute(select(DriftAlertRow))).scalars().all()
        assert {r.id for r in rows} == {a.alert_id for a in alerts}
        assert await check_drift(session, window=WINDOW, now=NOW + timedelta(seconds=30)) == []


async def test_an_unchanged_agent_raises_no_alert(session_factory: Sessions) -> None:
    same = [1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0] * 3
    async with session_factory() as session:
        await _offline_experiment(session, mean=0.9)
        await session.commit()
    await _scores(session_factory, same, NOW - 2 * WINDOW, 0)
    await _scores(session_factory, same, NOW - WINDOW, 100)
    async with session_factory() as session:
        assert await check_drift(session, window=WINDOW, now=NOW) == []


async def test_an_experiment_of_another_model_is_not_a_reference(session_factory: Sessions) -> None:
    async with session_factory() as session:
        await _offline_experiment(session, mean=1.0)
        await session.execute(
            update(Experiment).values(
                config=ExperimentConfig(
                    target=AgentTarget(model=ModelConfig(provider="mistral", name="m")), evaluators=[]
                )
            )
        )
        await session.commit()
    await _scores(session_factory, [0.0] * 10, NOW - WINDOW, 100)
    async with session_factory() as session:
        assert await check_drift(session, window=WINDOW, now=NOW) == []


def _trace_score(i: int) -> tuple[str, datetime, float]:
    """Trace ``i``'s application, time and value: even traces in the recent window, odd ones in the
    previous; ``support-bot`` (0-11) drops from about 0.95 to 0.1, ``steady-app`` (12-23) stays."""
    application = "support-bot" if i < 12 else "steady-app"
    recent = i % 2 == 0
    at = NOW - timedelta(minutes=5 + i) - (timedelta(0) if recent else WINDOW)
    steady = 1.0 if i % 4 < 2 else 0.9
    value = (0.0 if i % 4 == 0 else 0.2) if recent and application == "support-bot" else steady
    return application, at, value


async def _trace_scores_with_a_drop(session_factory: Sessions, name: str | None = None) -> None:
    """24 stored traces whose scores follow :func:`_trace_score` (renamed to ``name`` if given)."""
    await configure_traces(session_factory, rate=1.0)
    h = trace_handler(session_factory)
    for n in range(24):
        assert await h.handle(part(n, [0, 1, 2, 3], Completeness.ROOT_ENDED)) == "stored"
    async with session_factory() as session:
        trace_pks = list((await session.execute(select(Trace.id).order_by(Trace.id))).scalars())
        for i, trace_pk in enumerate(trace_pks):
            application, at, value = _trace_score(i)
            renamed = {"name": name} if name else {}
            await session.execute(
                update(TraceScore)
                .where(TraceScore.trace_pk == trace_pk)
                .values(trace_at=at, value=value, application=application, **renamed)
            )
        await session.commit()


async def test_trace_scores_drift_per_application_and_model(session_factory: Sessions) -> None:
    """A drop in one application's trace scores alerts for that application; another application
    with steady scores and the same model does not."""
    await _trace_scores_with_a_drop(session_factory)
    async with session_factory() as session:
        alerts = await check_drift(session, window=WINDOW, now=NOW)
        await session.commit()
    assert [(a.evaluator, a.model, a.prompt_version, a.application, a.reference) for a in alerts] == [
        ("tool_called", "gpt-test", TRACE_PROMPT_VERSION, "support-bot", "previous_window")
    ]
    async with session_factory() as session:
        stored = (await session.execute(select(DriftAlertRow))).scalar_one()
    assert stored.application == "support-bot"


async def test_human_labels_never_raise_drift_alerts(session_factory: Sessions) -> None:
    """The same drop in reviewers' labels (``human.<field>`` scores) is no drift: drift watches the
    evaluators; a review queue's labels measure the people's sample, not the traffic."""
    await _trace_scores_with_a_drop(session_factory, name="human.correct")
    async with session_factory() as session:
        assert await check_drift(session, window=WINDOW, now=NOW) == []
