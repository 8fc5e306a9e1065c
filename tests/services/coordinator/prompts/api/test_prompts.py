"""The prompt registry's API: versions by content, movable labels, references resolved."""

from __future__ import annotations

import pytest

from tests.services.coordinator.harness import Coordinator

pytestmark = [pytest.mark.integration, pytest.mark.timeout(60)]

NAME = "drive-thru/orchestrator"


async def test_push_label_and_resolve(coordinator: Coordinator) -> None:
    c = coordinator.client
    first = (
        await c.post("/prompts", json={"name": NAME, "template": "one", "labels": ["production"]})
    ).json()
    assert (first["version"], first["labels"], first["created_new_version"]) == (1, ["production"], True)
    same = (await c.post("/prompts", json={"name": NAME, "template": "one"})).json()
    assert (same["version"], same["created_new_version"]) == (1, False)
    second = (await c.post("/prompts", json={"name": NAME, "template": "two", "labels": ["staging"]})).json()
    assert second["version"] == 2

    resolved = (await c.get("/prompts/resolve", params={"ref": NAME})).json()
    assert (resolved["version"], resolved["template"]) == (1, "one")  # the production label
    staging = (await c.get("/prompts/resolve", params={"ref": f"{NAME}@staging"})).json()
    assert staging["version"] == 2

    promoted = await c.put(f"/prompts/{NAME}/labels/production", json={"version": 2})
    assert promoted.status_code == 200 and promoted.json()["labels"] == ["production", "staging"]
    assert (await c.get("/prompts/resolve", params={"ref": NAME})).json()["version"] == 2
    listed = (await c.get("/prompts")).json()
    assert listed == [{"name": NAME, "latest_version": 2, "labels": {"production": 2, "staging": 2}}]
    assert [v["version"] for v in (await c.get(f"/prompts/{NAME}/versions")).json()] == [1, 2]

    assert (await c.get("/prompts/resolve", params={"ref": f"{NAME}@canary"})).status_code == 404
    assert (await c.get("/prompts/resolve", params={"ref": "bad ref!"})).status_code == 422
    assert (await c.put(f"/prompts/{NAME}/labels/production", json={"version": 9})).status_code == 404
    bad_label = await c.post("/prompts", json={"name": NAME, "template": "x", "labels": ["no spaces"]})
    assert bad_label.status_code == 422


async def test_experiments_name_a_prompt(coordinator: Coordinator) -> None:
    await coordinator.client.post(
        "/datasets/syn/items",
        json={
            "items": [{"id": "a", "input": {"customer_utterance": "a hash brown"}}],
            "create": {"kind": "drive_thru"},
        },
    )
    body = {"name": "p", "dataset": "syn", "target": {"kind": "agent", "prompt": f"{NAME}@staging"}}
    accepted = await coordinator.client.post("/experiments", json=body)
    assert accepted.status_code == 202
    shown = (await coordinator.client.get(f"/experiments/{accepted.json()['id']}")).json()
    assert shown["target"]["prompt"] == f"{NAME}@staging"
    body["target"] = {"kind": "agent", "prompt": "not a ref!"}
    assert (await coordinator.client.post("/experiments", json=body)).status_code == 422
