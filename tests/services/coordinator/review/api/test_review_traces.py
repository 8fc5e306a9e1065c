"""Review queues over sampled OpenTelemetry traces, against a real coordinator: a queue of one
application's traces narrowed by window, score, errors and a seeded sample (a typo is a 422 naming
it); a trace item shows its messages, tool calls and trajectory with its online scores hidden until
labelled; labels become ``human.<field>`` trace scores that GET /traces/{id} shows; calibration of an
online evaluator over the queue; the labelled traces become a dataset version; a drift alert on the
application opens a queue over its window in one call."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select

from services.coordinator.datasets.store import datasets as dataset_store
from shared.db.models import Dataset, DatasetVersion, DriftAlertRow
from tests.services.coordinator.harness import Coordinator
from tests.services.coordinator.traces.api.test_traces import CONFIG, store
from tests.services.sampler.spans import T0, trace_hex

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]

BINARY: dict[str, Any] = {
    "fields": [
        {"name": "correct", "kind": "binary", "instructions": "The reply answers the question"},
        {"name": "correction", "kind": "text", "required": False},
    ]
}
REFUNDS = (1, 4)  # asked for refund instead of lookup_order: tool_called scores 0
ERRORS = (4,)


def at(n: int) -> str:
    """Trace ``n``'s start time (spans.trace_spans starts trace n at T0 + n * 10 ms)."""
    return (datetime.fromtimestamp(T0 / 1e9, UTC) + timedelta(milliseconds=10 * n)).isoformat()


async def _traces(coordinator: Coordinator) -> None:
    assert (await coordinator.client.put("/online/config", json=CONFIG)).status_code == 200
    sessions = coordinator.runtime.sessions
    for n in range(6):
        await store(sessions, n, tool="refund" if n in REFUNDS else "lookup_order", error=n in ERRORS)
    await store(sessions, 6, service="billing")


def queue(name: str, **source: Any) -> dict[str, Any]:
    return {
        "name": name,
        "source": {"kind": "traces", "application": "support-bot", **source},
        "rubric": BINARY,
    }


async def _trace_ids(coordinator: Coordinator, name: str) -> list[str]:
    c = coordinator.client
    size = (await c.get(f"/review/queues/{name}")).json()["items"]
    return [(await c.get(f"/review/queues/{name}/items/{p}")).json()["trace_id"] for p in range(1, size + 1)]


async def test_a_queue_of_traces_filtered_and_validated(coordinator: Coordinator) -> None:
    c = coordinator.client
    await _traces(coordinator)
    made = await c.post("/review/queues", json=queue("all"))
    assert made.status_code == 201, made.text
    assert made.json()["items"] == 6
    assert await _trace_ids(coordinator, "all") == [trace_hex(n) for n in range(6)]  # oldest first

    async def picks(name: str, **source: Any) -> list[str]:
        response = await c.post("/review/queues", json=queue(name, **source))
        assert response.status_code == 201, response.text
        return await _trace_ids(coordinator, name)

    assert await picks("low", evaluator="tool_called", below=1) == [trace_hex(n) for n in REFUNDS]
    assert await picks("errors", errors_only=True) == [trace_hex(n) for n in ERRORS]
    assert await picks("window", since=at(1), until=at(3)) == [trace_hex(1), trace_hex(2)]
    first = await picks("s1", sample=3, seed=11)
    assert len(first) == 3 and await picks("s2", sample=3, seed=11) == first  # same seed, same traces

    async def refused(**source: Any) -> str:
        response = await c.post("/review/queues", json=queue("bad", **source))
        assert response.status_code == 422, response.text
        return str(response.json()["detail"])

    assert "'nope'" in await refused(application="nope")
    assert "no online score 'llm_rubric'" in await refused(evaluator="llm_rubric", below=0.5)
    assert "evaluator and below together" in await refused(below=0.5)
    assert "since must be before until" in await refused(since=at(3), until=at(1))
    assert "selects no item" in await refused(until=at(0))
    assert (await c.post("/projects", json={"name": "other"})).status_code == 201
    elsewhere = await c.post("/review/queues", json=queue("x"), headers={"X-Yardstick-Project": "other"})
    assert elsewhere.status_code == 422 and "'support-bot'" in elsewhere.json()["detail"]


async def test_trace_labels_become_human_scores_calibration_and_a_dataset(coordinator: Coordinator) -> None:
    from sklearn.metrics import cohen_kappa_score

    c = coordinator.client
    await _traces(coordinator)
    made = await c.post("/review/queues", json={**queue("bot"), "reviewers_per_item": 1})
    assert made.status_code == 201, made.text

    item = (await c.get("/review/queues/bot/items/1", params={"reviewer": "ann"})).json()
    assert item["trace_id"] == trace_hex(0) and item["trace_url"] == f"/ui/traces/{trace_hex(0)}"
    assert item["input"]["query"] == "Where is order 0?"
    assert item["output"]["response"] == "Order 0 ships today."
    assert [t["name"] for t in item["output"]["tool_calls"]] == ["lookup_order"]
    assert item["output"]["tool_calls"][0]["result"] == {"status": "shipped"}
    assert [s["type"] for s in item["output"]["trajectory"]] == ["human", "ai", "tool", "ai"]
    assert item["metadata"]["application"] == "support-bot" and item["scores"] is None  # hidden

    judged, humans = [], []
    for position in range(1, 7):
        n = position - 1
        passed = n not in REFUNDS  # what tool_called says
        human = passed if n != 2 else not passed  # ann disagrees with the evaluator once
        url = f"/review/queues/bot/items/{position}/label"
        first = await c.put(url, json={"values": {"correct": not human}, "reviewer": "ann"})
        assert first.status_code == 200, first.text
        values: dict[str, Any] = {"correct": human}
        if n == 1:
            values["correction"] = "Order 1 ships today."
        assert (await c.put(url, json={"values": values, "reviewer": "ann"})).status_code == 200
        judged.append(passed)
        humans.append(human)

    shown = (await c.get("/review/queues/bot/items/1", params={"reviewer": "ann"})).json()
    assert shown["scores"] == {"tool_called": 1.0}  # the online score, now that ann labelled
    detail = (await c.get(f"/traces/{trace_hex(2)}")).json()
    assert detail["scores"] == {"human.correct": 0.0, "tool_called": 1.0}
    human = next(s for s in detail["score_details"] if s["name"] == "human.correct")
    assert human["source"] == "human" and human["evaluator_version"] == "human"
    assert human["metadata"]["reviewers"] == [{"reviewer": "ann", "value": False}]  # replaced, not added
    assert human["metadata"]["queue"] == "bot"
    listed = (await c.get("/traces", params={"service": "support-bot", "below": "human.correct=1"})).json()
    assert {t["trace_id"] for t in listed["items"]} == {trace_hex(n) for n in (1, 2, 4)}
    assert "human.correct" not in (await c.get(f"/traces/{trace_hex(6)}")).json()["scores"]

    report = await c.get("/calibration", params={"queue": "bot", "evaluator": "tool_called"})
    assert report.status_code == 200, report.text
    versus = report.json()["judge_vs_human"]
    assert versus["n"] == 6
    assert versus["kappa"]["value"] == pytest.approx(cohen_kappa_score(humans, judged))
    assert {d["position"] for d in report.json()["disagreements"]} == {3}
    assert report.json()["disagreements"][0]["title"] == f"trace {trace_hex(2)}"

    result = await c.post("/review/queues/bot/dataset", json={"dataset": "reviewed-traces"})
    assert result.status_code == 200, result.text
    assert result.json()["version"] == 1 and result.json()["added"] == 6
    async with coordinator.runtime.sessions() as session:
        version = (
            await session.execute(
                select(DatasetVersion).join(Dataset).where(Dataset.name == "reviewed-traces")
            )
        ).scalar_one()
        items = {i.id: i for i in await dataset_store.version_items(session, version.id)}
    assert version.status == "accepted"
    refund = items[f"trace:{trace_hex(1)}"]
    assert refund.input["query"] == "Where is order 1?" and refund.expected_output is not None
    assert refund.expected_output["human"] == {"correct": False, "correction": "Order 1 ships today."}
    assert refund.expected_output["tool_calls"] == ["refund"]  # the trace's own, as POST /traces/{id}/dataset
    assert refund.metadata["source"] == "review" and refund.metadata["review_queue"] == "bot"
    assert refund.metadata["application"] == "support-bot" and refund.metadata["review_status"] == "accepted"


async def _alert(coordinator: Coordinator, application: str | None, start: str, end: str) -> str:
    async with coordinator.runtime.sessions() as session:
        row = DriftAlertRow(
            project_id="default",
            evaluator="tool_called",
            model="gpt-test",
            prompt_version="-",
            reference="previous_window",
            application=application,
            detail={"window_start": start, "window_end": end},
        )
        session.add(row)
        await session.commit()
        return row.id


async def test_a_drift_alert_on_an_application_opens_a_queue_over_its_window(
    coordinator: Coordinator,
) -> None:
    c = coordinator.client
    await _traces(coordinator)
    alert = await _alert(coordinator, "support-bot", at(2), at(5))
    made = await c.post(f"/online/alerts/{alert}/review")
    assert made.status_code == 201, made.text
    body = made.json()
    assert body["name"] == f"drift-{alert[:8]}" and body["items"] == 3
    assert body["source"] == {
        **body["source"],
        "kind": "traces",
        "application": "support-bot",
        "alert_id": alert,
    }
    assert await _trace_ids(coordinator, body["name"]) == [trace_hex(n) for n in (2, 3, 4)]
    assert (await c.post(f"/online/alerts/{alert}/review")).status_code == 409  # made already
    assert (await c.post("/online/alerts/no-such-alert/review")).status_code == 404
    log = (await c.get("/audit", params={"action": "review.queue_create"})).json()
    assert log[0]["change"]["after"]["source"]["alert_id"] == alert

    elsewhere = await _alert(coordinator, "billing", at(0), at(9))
    mismatch = await c.post("/review/queues", json=queue("mix", alert_id=elsewhere))
    assert mismatch.status_code == 422 and "'billing'" in mismatch.json()["detail"]
