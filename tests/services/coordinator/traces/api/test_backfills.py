"""``/traces/backfill``: evaluators run over the stored traces of a window, in the background, with
progress; run twice it writes nothing new and a score already present is kept."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import select

from services.coordinator.errors import CoordinatorError
from services.coordinator.traces.api.backfills import backfill_spec
from shared.db.trace_models import Trace, TraceScore
from tests.services.coordinator.harness import Coordinator
from tests.services.coordinator.traces.api.test_traces import CONFIG, store
from yardstick.api.evaluation import EvaluatorSpec
from yardstick.api.traces import BackfillCreate

WINDOW = {"since": "3650d"}  # the test spans start in 2026
NEW = {"name": "latency_budget", "args": {"max_ms": 1000}}
PRESENT = {"name": "tool_called", "args": {"tool": "refund"}}  # the sampler scored lookup_order already
UNMEASURABLE = {"name": "numeric_tolerance", "args": {"expected": 3}}  # a trace's answer is no number


async def _scores(coordinator: Coordinator) -> list[tuple[str, str, float | None, str | None]]:
    async with coordinator.runtime.sessions() as session:
        stmt = (
            select(Trace.trace_id, TraceScore.name, TraceScore.value, TraceScore.comment)
            .join(Trace, Trace.id == TraceScore.trace_pk)
            .order_by(Trace.trace_id, TraceScore.name)
        )
        return [tuple(row) for row in (await session.execute(stmt)).all()]  # type: ignore[misc]


async def _backfill(coordinator: Coordinator, body: dict[str, object]) -> dict[str, object]:
    started = await coordinator.client.post("/traces/backfill", json=body)
    assert started.status_code == 202, started.text
    job = started.json()
    await coordinator.runtime.backfills.wait(job["id"])
    progress = await coordinator.client.get(f"/traces/backfill/{job['id']}")
    assert progress.status_code == 200
    done: dict[str, object] = progress.json()
    return done


@pytest.mark.integration
@pytest.mark.timeout(120)
async def test_backfill_twice_writes_the_same_rows_and_keeps_present_scores(coordinator: Coordinator) -> None:
    c = coordinator.client
    assert (await c.put("/online/config", json=CONFIG)).status_code == 200
    sessions = coordinator.runtime.sessions
    for n in range(5):
        await store(sessions, n)
    await store(sessions, 5, service="billing")
    before = await _scores(coordinator)
    assert {name for _, name, _, _ in before} == {"tool_called", "latency_budget"}

    body = {**WINDOW, "application": "support-bot", "evaluators": [NEW, PRESENT, UNMEASURABLE]}
    first = await _backfill(coordinator, body)
    assert first["status"] == "done" and first["done"] == first["total"] == 5
    assert (first["written"], first["kept"], first["not_measured"]) == (10, 5, 5)
    assert "not a number" in first["not_measured_reasons"]["numeric_tolerance"]  # type: ignore[index]
    after = await _scores(coordinator)
    assert len(after) == len(before) + 10
    assert set(before) <= set(after)  # tool_called kept as the sampler wrote it (value 1, lookup_order)
    billing = [row for row in after if row[0] == before[-1][0]]
    assert [name for _, name, _, _ in billing] == ["latency_budget"]  # another application: untouched

    second = await _backfill(coordinator, body)
    assert second["id"] != first["id"] and second["done"] == second["total"] == 5
    assert (second["written"], second["kept"], second["not_measured"]) == (0, 15, 0)
    assert await _scores(coordinator) == after


@pytest.mark.integration
@pytest.mark.timeout(60)
async def test_backfill_refuses_unknown_evaluators_and_bad_windows(coordinator: Coordinator) -> None:
    c = coordinator.client
    unknown = await c.post("/traces/backfill", json={**WINDOW, "evaluators": [{"name": "no_such_metric"}]})
    assert unknown.status_code == 422 and "no_such_metric" in unknown.json()["detail"]
    bad = await c.post("/traces/backfill", json={"since": "last week", "evaluators": [NEW]})
    assert bad.status_code == 422 and "since" in bad.json()["detail"]
    backwards = await c.post("/traces/backfill", json={"since": "1d", "until": "2d", "evaluators": [NEW]})
    assert backwards.status_code == 422 and "not before" in backwards.json()["detail"]
    nothing = await _backfill(coordinator, {"since": "1h", "evaluators": [NEW]})
    assert (nothing["status"], nothing["total"], nothing["done"], nothing["written"]) == ("done", 0, 0, 0)
    missing = await c.get("/traces/backfill/not-a-job")
    assert missing.status_code == 404


@pytest.mark.unit
def test_window_takes_durations_and_iso_times() -> None:
    now = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)
    x = [EvaluatorSpec(name="x")]
    spec = backfill_spec(BackfillCreate(since="7d", until="2026-11-26T00:00:00", evaluators=x), now)
    assert spec.since == datetime(2026, 11, 19, 12, 0, tzinfo=UTC)
    assert spec.until == datetime(2026, 11, 26, 0, 0, tzinfo=UTC)
    with pytest.raises(CoordinatorError, match="not before"):
        backfill_spec(BackfillCreate(since="1h", until="2h", evaluators=x), now)
