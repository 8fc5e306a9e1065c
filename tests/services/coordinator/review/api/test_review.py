"""Review queues against a real coordinator: a queue from an experiment's failing items and one from
sampled traces; labels checked against the rubric, replacing a reviewer's earlier label, stored as
``human`` scores (two reviewers averaged); scores hidden until labelled; the labelled items become a
dataset version an experiment runs; every decision audited; another project's queue is a 404."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from services.evaluator.worker import EvalWorker
from shared.analysis.stats import prediction_powered_mean
from shared.online.sampling_config import SamplingSettings, save_config
from tests.services.coordinator.conftest import experiment_body
from tests.services.coordinator.harness import Coordinator, ScriptedAgent, synthetic_items
from tests.services.sampler.sampled_traces import store
from yardstick.api.prediction_powered import PredictionPoweredMean

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]

TRACES: dict[str, Any] = {"kind": "traces", "application": "support-bot"}

RUBRIC: dict[str, Any] = {
    "instructions": "Is the order right?",
    "fields": [
        {"name": "correct", "kind": "binary", "instructions": "The order matches what was asked"},
        {"name": "helpfulness", "kind": "ordinal", "scale": [1, 5]},
        {"name": "note", "kind": "text", "required": False},
    ],
}


async def _finished_run(coordinator: Coordinator, agent: ScriptedAgent) -> str:
    await coordinator.push("syn", synthetic_items(12))
    agent.drop_fraction = 0.5
    run = (await coordinator.client.post("/experiments", json=experiment_body(name="r"))).json()["id"]
    assert (await coordinator.finished(run))["status"] == "completed"
    return str(run)


async def test_a_queue_of_failing_items_labelled_by_two_people(
    coordinator: Coordinator, workers: list[EvalWorker], agent: ScriptedAgent
) -> None:
    c = coordinator.client
    run = await _finished_run(coordinator, agent)
    source = {"kind": "experiment", "experiment_id": run, "failing": "order_correctness"}
    made = await c.post(
        "/review/queues",
        json={"name": "wrong-orders", "source": source, "rubric": RUBRIC, "reviewers_per_item": 2},
    )
    assert made.status_code == 201, made.text
    queue = made.json()
    failing = (await c.get(f"/experiments/{run}/items", params={"failing": "order_correctness"})).json()
    assert queue["items"] == failing["total"] > 0 and queue["labelled"] == 0

    first = (await c.get("/review/queues/wrong-orders/next")).json()["position"]
    assert first == 1
    hidden = (await c.get("/review/queues/wrong-orders/items/1", params={"reviewer": "ann"})).json()
    assert hidden["scores"] is None and hidden["output"] is not None and hidden["total"] == queue["items"]

    bad = await c.put(
        "/review/queues/wrong-orders/items/1/label", json={"values": {"correct": True, "helpfulness": 7}}
    )
    assert (
        bad.status_code == 422
        and "'helpfulness'" in bad.json()["detail"]
        and "1 to 5" in bad.json()["detail"]
    )
    missing = await c.put("/review/queues/wrong-orders/items/1/label", json={"values": {"helpfulness": 3}})
    assert missing.status_code == 422 and "'correct' is required" in missing.json()["detail"]
    url = "/review/queues/wrong-orders/items/1/label"
    for values in (
        {"correct": True, "helpfulness": 5},
        {"correct": False, "helpfulness": 2, "note": "wrong"},
    ):
        labelled = await c.put(url, json={"values": values, "reviewer": "ann"})
        assert labelled.status_code == 200, labelled.text
    shown = (await c.get("/review/queues/wrong-orders/items/1", params={"reviewer": "ann"})).json()
    assert shown["scores"] is not None and "order_correctness" in shown["scores"]
    assert [(lab["reviewer"], lab["values"]["correct"]) for lab in shown["labels"]] == [("ann", False)]
    # ann is done with item 1; it still needs a second reviewer, so bob is sent there.
    assert (await c.get("/review/queues/wrong-orders/next", params={"reviewer": "ann"})).json()[
        "position"
    ] == 2
    assert (await c.get("/review/queues/wrong-orders/next", params={"reviewer": "bob"})).json()[
        "position"
    ] == 1
    await c.put(url, json={"values": {"correct": True, "helpfulness": 4}, "reviewer": "bob"})

    item_id = shown["item_id"]
    page = (await c.get(f"/experiments/{run}/items", params={"limit": 1000})).json()["items"]
    scores = {s["name"]: s for s in next(i for i in page if i["item_id"] == item_id)["scores"]}
    assert scores["human.correct"]["value"] == pytest.approx(0.5)  # ann False, bob True
    assert scores["human.helpfulness"]["value"] == pytest.approx(((2 - 1) / 4 + (4 - 1) / 4) / 2)
    assert scores["human.correct"]["metadata"]["source"] == "human"
    assert {r["reviewer"] for r in scores["human.correct"]["metadata"]["reviewers"]} == {"ann", "bob"}
    assert (await c.get("/review/queues/wrong-orders")).json()["labelled"] == 1

    log = (await c.get("/audit", params={"action": "review.label"})).json()
    replaced = [e for e in log if e["change"]["before"] is not None]
    assert len(log) == 3 and replaced[0]["change"]["before"]["values"]["correct"] is True

    for position in range(2, queue["items"] + 1):
        for reviewer in ("ann", "bob"):
            await c.put(
                f"/review/queues/wrong-orders/items/{position}/label",
                json={"values": {"correct": True, "helpfulness": 3}, "reviewer": reviewer},
            )
    assert (await c.get("/review/queues/wrong-orders/next", params={"reviewer": "cy"})).json()[
        "position"
    ] is None
    version = await c.post("/review/queues/wrong-orders/dataset", json={"dataset": "reviewed"})
    assert version.status_code == 200, version.text
    assert version.json()["item_count"] == queue["items"]
    rerun = await c.post("/experiments", json=experiment_body(name="on-reviewed", dataset="reviewed"))
    assert rerun.status_code == 202, rerun.text
    assert (await coordinator.finished(rerun.json()["id"]))["status"] == "completed"


async def test_a_queue_of_production_traces_and_isolation(coordinator: Coordinator) -> None:
    c = coordinator.client
    async with coordinator.runtime.sessions() as session:
        await save_config(session, "default", SamplingSettings(rate=1.0))
        await session.commit()
    now = datetime.now(UTC)
    for n in range(5):
        assert await store(coordinator.runtime.sessions, n, at=now) == "stored"
    made = await c.post(
        "/review/queues",
        json={"name": "prod", "source": {**TRACES, "sample": 3, "seed": 7}, "rubric": RUBRIC},
    )
    assert made.status_code == 201, made.text
    again = await c.post(
        "/review/queues",
        json={"name": "prod-2", "source": {**TRACES, "sample": 3, "seed": 7}, "rubric": RUBRIC},
    )
    ids = [
        (await c.get(f"/review/queues/{q}/items/{p}")).json()["trace_id"]
        for q in ("prod", "prod-2")
        for p in (1, 2, 3)
    ]
    assert ids[:3] == ids[3:] and again.status_code == 201  # same seed, same traces
    labelled = await c.put(
        "/review/queues/prod/items/1/label", json={"values": {"correct": False, "helpfulness": 1}}
    )
    assert labelled.status_code == 200, labelled.text
    labelled_trace = (await c.get(f"/traces/{ids[0]}")).json()
    assert labelled_trace["scores"]["human.correct"] == 0.0
    metrics = (await c.get("/online/metrics", params={"window": "1h", "bucket": "5m"})).json()
    human = next(s for s in metrics["series"] if s["evaluator"] == "human.correct")
    assert human["n"] == 1 and human["mean"] == 0.0

    empty = await c.post(
        "/review/queues",
        json={"name": "none", "source": {**TRACES, "model": "nobody"}, "rubric": RUBRIC},
    )
    assert empty.status_code == 422 and "selects no item" in empty.json()["detail"]
    assert (await c.post("/projects", json={"name": "other"})).status_code == 201
    elsewhere = {"X-Yardstick-Project": "other"}
    assert (await c.get("/review/queues/prod", headers=elsewhere)).status_code == 404
    assert (await c.get("/review/queues", headers=elsewhere)).json() == []


async def test_calibration_of_an_evaluator_against_two_reviewers(
    coordinator: Coordinator, workers: list[EvalWorker], agent: ScriptedAgent
) -> None:
    from sklearn.metrics import cohen_kappa_score

    c = coordinator.client
    run = await _finished_run(coordinator, agent)
    binary = {"fields": [{"name": "correct", "kind": "binary"}]}
    source = {"kind": "experiment", "experiment_id": run}
    queue = (
        await c.post(
            "/review/queues",
            json={"name": "cal", "source": source, "rubric": binary, "reviewers_per_item": 2},
        )
    ).json()
    judged: list[bool] = []
    humans: list[bool | None] = []
    for position in range(1, queue["items"] + 1):
        item = (await c.get(f"/review/queues/cal/items/{position}", params={"reviewer": "x"})).json()
        passed = item["output"]["order_items"] != []  # the scripted agent is right unless it dropped
        ann = passed if position not in (2, 5) else not passed  # ann disagrees with the run twice
        bob = ann if position != 7 else not ann  # and bob with ann once
        for reviewer, value in (("ann", ann), ("bob", bob)):
            await c.put(
                f"/review/queues/cal/items/{position}/label",
                json={"values": {"correct": value}, "reviewer": reviewer},
            )
        judged.append(passed)
        humans.append(ann if ann == bob else None)

    report = (await c.get("/calibration", params={"queue": "cal", "evaluator": "order_correctness"})).json()
    versus = report["judge_vs_human"]
    pairs = [(h, j) for h, j in zip(humans, judged, strict=True) if h is not None]
    assert versus["n"] == len(pairs) == queue["items"] - 1
    expected = cohen_kappa_score([h for h, _ in pairs], [j for _, j in pairs])
    assert versus["kappa"]["value"] == pytest.approx(expected)
    assert -1 <= versus["kappa"]["ci_low"] <= versus["kappa"]["value"] <= versus["kappa"]["ci_high"] <= 1
    assert report["disagreement_count"] == 2 and {d["position"] for d in report["disagreements"]} == {2, 5}
    assert report["between_reviewers"]["n"] == queue["items"]
    assert report["between_reviewers"]["observed_agreement"]["count"] == queue["items"] - 1
    assert "order_correctness" in report["evaluators"] and "1 item(s) left out" in report["notes"][0]
    everything = report["human_scale"]["order_correctness"]  # every item labelled: no one to predict
    assert everything["estimate"] is None and everything["n_unlabelled"] == 0
    assert (everything["n_labelled"], everything["labels_only"]["n"]) == (queue["items"], queue["items"])
    assert "every judged item is labelled" in everything["reason"]
    versus_itself = await c.get(
        "/calibration",
        params={"queue": "cal", "evaluator": "order_correctness", "against": "order_correctness"},
    )
    assert versus_itself.json()["comparison"]["difference"]["value"] == 0
    unknown = await c.get("/calibration", params={"queue": "cal", "field": "nope"})
    assert unknown.status_code == 422 and "no field 'nope'" in unknown.json()["detail"]


async def test_the_peoples_pass_rate_from_a_sample_of_the_run_by_prediction_powered_inference(
    coordinator: Coordinator, workers: list[EvalWorker], agent: ScriptedAgent
) -> None:
    c = coordinator.client
    run = await _finished_run(coordinator, agent)
    items = (await c.get(f"/experiments/{run}/items", params={"limit": 100})).json()["items"]
    judged = {  # the scripted agent is right unless it dropped the order: the judge passes it
        (i["item_id"], i["trial"]): float(i["output"]["order_items"] != [])
        for i in items
        if i["status"] == "ok"
    }
    binary = {"fields": [{"name": "correct", "kind": "binary"}]}
    source = {"kind": "experiment", "experiment_id": run, "sample": 6, "seed": 3}
    made = await c.post("/review/queues", json={"name": "ppi", "source": source, "rubric": binary})
    assert made.status_code == 201, made.text
    humans: list[float] = []
    judge_labelled: list[float] = []
    for position in range(1, 7):
        item = (await c.get(f"/review/queues/ppi/items/{position}", params={"reviewer": "ann"})).json()
        passed = position % 3 != 0  # the people pass four of the six, whatever the judge says
        await c.put(f"/review/queues/ppi/items/{position}/label", json={"values": {"correct": passed}})
        humans.append(float(passed))
        judge_labelled.append(judged.pop((item["item_id"], item["trial"])))
    report = (await c.get("/calibration", params={"queue": "ppi", "evaluator": "order_correctness"})).json()
    got = PredictionPoweredMean.model_validate(report["human_scale"]["order_correctness"])
    expected = prediction_powered_mean(humans, judge_labelled, list(judged.values()), scale=(0.0, 1.0))
    assert (got.n_labelled, got.n_unlabelled) == (6, len(judged)) and got.estimate is not None
    assert expected.estimate is not None and got.rectifier == pytest.approx(expected.rectifier)
    assert got.estimate.model_dump() == pytest.approx(expected.estimate.model_dump())
    assert got.judge_only == expected.judge_only and got.labels_only == expected.labels_only
    assert got.reason == expected.reason
    assert report["population"] == (
        f"the {len(judged) + 6} finished (item, trial)s of experiment {run} that the queue's source "
        f"selects (before its sample): 6 labelled, {len(judged)} not"
    )


async def test_items_dealt_to_reviewers_are_offered_to_them_first(coordinator: Coordinator) -> None:
    c = coordinator.client
    async with coordinator.runtime.sessions() as session:
        await save_config(session, "default", SamplingSettings(rate=1.0))
        await session.commit()
    for n in range(4):
        assert await store(coordinator.runtime.sessions, n) == "stored"
    body = {"name": "dealt", "source": TRACES, "rubric": RUBRIC, "assign": ["ann", "bob"]}
    assert (await c.post("/review/queues", json=body)).status_code == 201
    assert [
        (await c.get("/review/queues/dealt/items/" + str(p))).json()["assigned_to"] for p in (1, 2, 3, 4)
    ] == [
        "ann",
        "bob",
        "ann",
        "bob",
    ]
    assert (await c.get("/review/queues/dealt/next", params={"reviewer": "bob"})).json()["position"] == 2
    moved = await c.put("/review/queues/dealt/items/1/assignee", json={"reviewer": "bob"})
    assert moved.status_code == 200
    assert (await c.get("/review/queues/dealt/next", params={"reviewer": "bob"})).json()["position"] == 1
    assert (await c.get("/review/queues/dealt/next", params={"reviewer": "cy"})).json()[
        "position"
    ] == 1  # anyone may
    log = (await c.get("/audit", params={"action": "review.assign"})).json()
    change = log[0]["change"]
    assert (change["before"], change["after"]) == ({"reviewer": "ann"}, {"reviewer": "bob"})
