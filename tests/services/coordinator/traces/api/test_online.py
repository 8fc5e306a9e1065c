from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.coordinator.datasets.store import datasets as dataset_store
from shared.db.models import DriftAlertRow
from shared.online.sampling_config import DEFAULT_EVALUATORS
from tests.services.coordinator.harness import Coordinator
from tests.services.coordinator.traces.api.test_traces import CONFIG
from tests.services.sampler.sampled_traces import store
from tests.services.sampler.spans import trace_hex

pytestmark = pytest.mark.integration


async def test_config_round_trip_and_validation(coordinator: Coordinator) -> None:
    client = coordinator.client
    default = (await client.get("/online/config")).json()
    assert [e["name"] for e in default["evaluators"]] == list(DEFAULT_EVALUATORS)
    body = {
        "rate": 0.2,
        "filters": {"model": "offline:ask", "metadata": {"store": "17"}},
        "cap_per_minute": 100,
        "evaluators": [{"name": "tool_call_protocol"}],
    }
    saved = (await client.put("/online/config", json=body)).json()
    assert saved["rate"] == 0.2 and saved["cap_per_minute"] == 100 and saved["updated_at"]
    assert (await client.get("/online/config")).json()["filters"]["metadata"] == {"store": "17"}

    too_high = await client.put("/online/config", json={"rate": 1.5})
    assert too_high.status_code == 422
    assert too_high.json()["errors"][0]["loc"][-1] == "rate"
    unknown = await client.put("/online/config", json={"evaluators": [{"name": "nope"}]})
    assert unknown.status_code == 422
    assert "unknown item-level evaluator 'nope'" in unknown.text
    assert (await client.get("/online/config")).json()["rate"] == 0.2  # rejected bodies change nothing


async def test_requires_an_api_key(coordinator: Coordinator) -> None:
    response = await coordinator.client.get("/online/config", headers={"Authorization": ""})
    assert response.status_code == 401


async def test_metrics_alerts_and_a_trace_to_review(coordinator: Coordinator) -> None:
    client = coordinator.client
    await client.put("/online/config", json=CONFIG)
    sessions: async_sessionmaker[AsyncSession] = coordinator.runtime.sessions
    now = datetime.now(UTC)
    for i in range(6):
        assert await store(sessions, i, at=now - timedelta(minutes=i)) == "stored"
    assert await store(sessions, 6, tool="refund", at=now) == "stored"  # not the tool asked for

    metrics = (await client.get("/online/metrics", params={"window": "1h", "bucket": "5m"})).json()
    (series,) = metrics["series"]
    assert (series["evaluator"], series["application"], series["model"]) == (
        "tool_called",
        "support-bot",
        "gpt-test",
    )
    assert series["n"] == 7 and series["mean"] == pytest.approx(6 / 7)
    assert sum(b["n"] for b in series["buckets"]) == 7
    bad = await client.get("/online/metrics", params={"window": "soon"})
    assert bad.status_code == 422 and "invalid duration 'soon'" in bad.json()["detail"]

    async with sessions() as session:
        session.add(
            DriftAlertRow(
                evaluator="x", model="m", prompt_version="v", reference="offline", detail={"delta": -1}
            )
        )
        await session.commit()
    alerts = (await client.get("/online/alerts")).json()
    assert [(a["evaluator"], a["reference"], a["detail"]["delta"]) for a in alerts] == [("x", "offline", -1)]
    # an alert on the agent's turns from before traces: nothing left to review
    old = await client.post(f"/online/alerts/{alerts[0]['id']}/review")
    assert old.status_code == 409 and "no longer stored" in old.json()["detail"]

    # a trace added to a dataset is a version to review: runs that name no version do not use it
    added = (await client.post(f"/traces/{trace_hex(6)}/dataset", json={"dataset": "prod-review"})).json()
    assert (added["version"], added["added"]) == (1, 1)
    unreviewed = await client.post(
        "/experiments", json={"name": "x", "dataset": "prod-review", "target": {"kind": "agent"}}
    )
    assert unreviewed.status_code == 404 and "datasets accept prod-review 1" in unreviewed.json()["detail"]
    accepted = await client.post("/datasets/prod-review/versions/1/accept")
    assert accepted.status_code == 200 and accepted.json()["status"] == "accepted"
    async with sessions() as session:
        _, latest = await dataset_store.resolve_version(session, "prod-review", None)
    assert latest.version == 1
