"""Bad requests get a clear 4xx that names what was wrong; nothing is created."""

from __future__ import annotations

import pytest

from tests.services.coordinator.conftest import experiment_body
from tests.services.coordinator.harness import Coordinator, synthetic_items

pytestmark = [pytest.mark.integration, pytest.mark.timeout(60)]


async def test_requests_without_a_valid_key_are_refused(coordinator: Coordinator) -> None:
    missing = await coordinator.client.get("/experiments", headers={"Authorization": ""})
    assert missing.status_code == 401
    assert "API key" in missing.json()["detail"]
    wrong = await coordinator.client.get("/experiments", headers={"Authorization": "Bearer ys_nope"})
    assert wrong.status_code == 401


async def test_validation_errors_name_the_field(coordinator: Coordinator) -> None:
    response = await coordinator.client.post("/experiments", json=experiment_body(concurrency=0))
    assert response.status_code == 422
    assert any(err["loc"][-1] == "concurrency" for err in response.json()["errors"])
    response = await coordinator.client.post("/experiments", json=experiment_body(concurrency=10_001))
    assert response.status_code == 422
    [error] = [err for err in response.json()["errors"] if err["loc"][-1] == "concurrency"]
    assert "10000" in error["msg"], error  # the bound is named
    response = await coordinator.client.post(
        "/experiments", json=experiment_body(target={"kind": "teleport"})
    )
    assert response.status_code == 422


async def test_an_empty_rate_limit_gets_422_naming_both_fields(coordinator: Coordinator) -> None:
    target = {"kind": "http", "url": "http://a.example/x", "rate_limit": {}}
    response = await coordinator.client.post("/experiments", json=experiment_body(target=target))
    assert response.status_code == 422, response.text
    assert "'requests' or 'tokens_per_minute'" in response.text
    assert (await coordinator.client.get("/experiments")).json() == []


async def test_unknown_references_are_named(coordinator: Coordinator) -> None:
    response = await coordinator.client.post("/experiments", json=experiment_body(dataset="no-such-set"))
    assert response.status_code == 404
    assert "no-such-set" in response.json()["detail"]

    await coordinator.push("syn", synthetic_items(3))
    response = await coordinator.client.post("/experiments", json=experiment_body(dataset_version=9))
    assert response.status_code == 404 and "version 9" in response.json()["detail"]

    response = await coordinator.client.post("/experiments", json=experiment_body(evaluators=["vibes_check"]))
    assert response.status_code == 422 and "vibes_check" in response.json()["detail"]

    response = await coordinator.client.post(
        "/experiments", json=experiment_body(evaluators=['order_correctness:{"strict": true}'])
    )
    assert response.status_code == 422
    assert "evaluator 'order_correctness': strict: unknown argument" in response.json()["detail"]

    response = await coordinator.client.post(
        "/experiments", json=experiment_body(pass_criteria={"order_correctness": "> 0.9"})
    )
    assert response.status_code == 422 and "'>=0.8', '<=0.1' or 'informational'" in str(response.json())

    response = await coordinator.client.post("/experiments", json=experiment_body(baseline_name="never-ran"))
    assert response.status_code == 422 and "never-ran" in response.json()["detail"]

    listed = (await coordinator.client.get("/experiments")).json()
    assert listed == [], "a refused request must not leave an experiment behind"


async def test_pushing_identical_items_keeps_the_version_and_changes_make_a_new_one(
    coordinator: Coordinator,
) -> None:
    items = synthetic_items(4)
    await coordinator.push("syn", items)
    again = await coordinator.client.post("/datasets/syn/items", json={"items": items, "replace": True})
    assert again.json()["created_new_version"] is False and again.json()["version"] == 1
    items[0]["input"]["customer_utterance"] = "order 99"
    changed = (await coordinator.client.post("/datasets/syn/items", json={"items": items[:1]})).json()
    assert changed["created_new_version"] is True and changed["version"] == 2
    assert changed["changed"] == 1 and changed["item_count"] == 4
    versions = (await coordinator.client.get("/datasets/syn/versions")).json()
    assert [v["version"] for v in versions] == [1, 2]


async def test_one_case_by_id(coordinator: Coordinator) -> None:
    await coordinator.push("syn", synthetic_items(5))
    one = await coordinator.client.post("/experiments", json=experiment_body(item_ids=["syn-0003"]))
    assert one.status_code == 202 and one.json()["total"] == 1
    typo = await coordinator.client.post("/experiments", json=experiment_body(item_ids=["syn-0003", "syn-9"]))
    assert typo.status_code == 422 and "has no item 'syn-9'" in typo.json()["detail"]


async def test_a_misspelt_item_field_is_refused_naming_the_item_from_1_and_the_closest_field(
    coordinator: Coordinator,
) -> None:
    items = [{"id": "a", "input": {}}, {"id": "b", "input": {}, "expected_ouput": {"x": 1}}]
    refused = await coordinator.client.post("/datasets/typo/items", json={"items": items})
    assert refused.status_code == 422, refused.text
    assert refused.json()["detail"] == (
        "invalid request: item 2: unknown field 'expected_ouput'; did you mean 'expected_output'? "
        "Put extra data under 'metadata'."
    )
    assert (await coordinator.client.get("/datasets/typo")).status_code == 404


async def test_items_that_are_not_conversations_are_refused_by_a_conversation_dataset(
    coordinator: Coordinator,
) -> None:
    bad = {"id": "c1", "input": {"question": "a cheeseburger"}}
    body = {"items": [bad], "create": {"kind": "conversation"}}
    refused = await coordinator.client.post("/datasets/talks/items", json=body)
    assert refused.status_code == 422, refused.text
    detail = refused.json()["detail"]
    assert "item 1 (id 'c1') is not a conversation" in detail and "turns" in detail
    assert (await coordinator.client.get("/datasets/talks")).status_code == 404  # nothing left behind

    good = {"id": "c1", "input": {"turns": ["a cheeseburger", "that's all"]}}
    accepted = await coordinator.client.post(
        "/datasets/talks/items", json={"items": [good], "create": {"kind": "conversation"}}
    )
    assert accepted.status_code == 200, accepted.text
    again = await coordinator.client.post("/datasets/talks/items", json={"items": [bad]})
    assert again.status_code == 422  # an existing conversation set refuses them too
