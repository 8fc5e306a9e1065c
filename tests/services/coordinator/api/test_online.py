from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.coordinator.store import datasets as dataset_store
from services.sampler.turn_handler import TurnHandler
from shared.db.models import DriftAlertRow
from shared.online.sampling_config import DEFAULT_EVALUATORS
from tests.services.coordinator.harness import Coordinator
from tests.services.sampler.turns import make_turn

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


async def test_metrics_alerts_and_promotion(coordinator: Coordinator, database_url: str) -> None:
    client = coordinator.client
    await client.put("/online/config", json={"rate": 1.0})
    sessions: async_sessionmaker[AsyncSession] = coordinator.runtime.sessions
    handler = TurnHandler(sessions)
    now = datetime.now(UTC)
    for i in range(6):
        await handler.handle(make_turn(f"c{i}", at=now - timedelta(minutes=i)))
    await handler.handle(make_turn("c0", 1, item_id="big-mac", at=now))

    metrics = (await client.get("/online/metrics", params={"window": "1h", "bucket": "5m"})).json()
    series = {s["evaluator"]: s for s in metrics["series"]}
    assert set(series) == set(DEFAULT_EVALUATORS)
    hallucination = series["no_hallucinated_items"]
    assert hallucination["n"] == 7 and hallucination["model"] == "offline:ask"
    assert hallucination["mean"] == pytest.approx(6 / 7)
    assert sum(b["n"] for b in hallucination["buckets"]) == 7
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

    samples = (await client.get("/online/samples")).json()
    target = next(s for s in samples if s["conversation_id"] == "c0" and s["turn_index"] == 1)
    first = (
        await client.post(f"/online/samples/{target['id']}/promote", json={"dataset": "prod-review"})
    ).json()
    assert first["version"] == 1 and first["added"] == 1
    other = next(s for s in samples if s["conversation_id"] == "c3")
    second = (
        await client.post(f"/online/samples/{other['id']}/promote", json={"dataset": "prod-review"})
    ).json()
    assert second["version"] == 2 and second["item_count"] == 2
    versions = (await client.get("/datasets/prod-review/versions")).json()
    assert [(v["version"], v["status"]) for v in versions] == [(1, "needs_review"), (2, "needs_review")]
    dataset = (await client.get("/datasets/prod-review")).json()
    assert (dataset["kind"], dataset["description"]) == ("drive_thru", "Promoted production turns")
    # nothing accepted yet: a run that names no version is refused, saying how to accept
    unreviewed = await client.post(
        "/experiments", json={"name": "x", "dataset": "prod-review", "target": {"kind": "agent"}}
    )
    assert unreviewed.status_code == 404 and "datasets accept prod-review 2" in unreviewed.json()["detail"]
    accepted = await client.post("/datasets/prod-review/versions/2/accept")
    assert accepted.status_code == 200 and accepted.json()["status"] == "accepted"
    async with sessions() as session:
        _, latest = await dataset_store.resolve_version(session, "prod-review", None)
        assert latest.version == 2
        items = {i.id: i for i in await dataset_store.version_items(session, latest.id)}
    promoted = items["production:c0:1"]
    # the conversation's earlier turn comes along, so a replay answers turn 1 where it was said
    assert promoted.input["customer_utterance"] == "one big-mac please"
    earlier = make_turn("c0").trajectory
    assert promoted.input["messages"] == [m.model_dump(mode="json") for m in earlier]
    assert (promoted.metadata["context_turns"], promoted.metadata["context_complete"]) == (1, True)
    assert promoted.expected_output is not None
    assert [line["item_id"] for line in promoted.expected_output["expected_items"]] == ["big-mac"]
    assert promoted.metadata["source"] == "production"
    assert promoted.metadata["review_status"] == "needs_review"
    assert (promoted.metadata["conversation_id"], promoted.metadata["turn_index"]) == ("c0", 1)
    missing = await client.post("/online/samples/999999/promote", json={"dataset": "prod-review"})
    assert missing.status_code == 404

    # only into a drive-thru dataset; an existing dataset's description and latest version untouched
    await client.post(
        "/datasets/search/golden/items",
        json={
            "items": [{"id": "q1", "input": {"query": "x"}}],
            "create": {"kind": "retrieval", "description": "golden"},
        },
    )
    refused = await client.post(f"/online/samples/{target['id']}/promote", json={"dataset": "search/golden"})
    assert refused.status_code == 409 and "holds retrieval items" in refused.json()["detail"]
    golden = (await client.get("/datasets/search/golden")).json()
    assert (golden["description"], golden["latest_version"]["version"]) == ("golden", 1)
