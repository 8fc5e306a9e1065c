"""Deleting experiments, comparisons and datasets; listing, revoking and expiring API keys."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from services.evaluator.worker import EvalWorker
from shared.db.api_keys import create_key_sync
from tests.services.coordinator.conftest import experiment_body
from tests.services.coordinator.harness import SECRET, Coordinator, ScriptedAgent, synthetic_items
from yardstick.api.roles import Role

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]


async def test_delete_experiments_comparisons_and_datasets(
    coordinator: Coordinator, workers: list[EvalWorker], agent: ScriptedAgent
) -> None:
    c = coordinator.client
    await coordinator.push("syn", synthetic_items(6))
    base = (await c.post("/experiments", json=experiment_body(name="base"))).json()["id"]
    await coordinator.finished(base)
    cand = (await c.post("/experiments", json=experiment_body(name="cand", baseline_id=base))).json()["id"]
    finished = await coordinator.finished(cand)
    comparison = finished["comparison_id"]
    assert comparison

    in_use = await c.delete("/datasets/syn")
    assert in_use.status_code == 409 and "used by 2 experiment(s)" in in_use.json()["detail"]

    assert (await c.delete(f"/comparisons/{comparison}")).status_code == 204
    assert (await c.get(f"/comparisons/{comparison}")).status_code == 404
    assert (await c.delete(f"/comparisons/{comparison}")).status_code == 404

    assert (await c.delete(f"/experiments/{base}")).status_code == 204  # the baseline of `cand`
    assert (await c.get(f"/experiments/{base}")).status_code == 404
    kept = (await c.get(f"/experiments/{cand}")).json()
    assert kept["baseline_id"] is None and kept["progress"]["done"] == 6
    assert (await c.delete(f"/experiments/{cand}")).status_code == 204
    assert (await c.delete("/datasets/syn")).status_code == 204
    assert (await c.get("/datasets")).json() == []


async def test_a_running_experiment_is_not_deleted(coordinator: Coordinator) -> None:
    await coordinator.push("syn", synthetic_items(3))  # no workers: it stays running
    running = (await coordinator.client.post("/experiments", json=experiment_body())).json()["id"]
    refused = await coordinator.client.delete(f"/experiments/{running}")
    assert refused.status_code == 409 and "cancel it first" in refused.json()["detail"]
    await coordinator.client.post(f"/experiments/{running}/cancel")
    assert (await coordinator.client.delete(f"/experiments/{running}")).status_code == 204


async def test_keys_list_revoke_and_expire(coordinator: Coordinator) -> None:
    url = coordinator.settings.database_url
    other = await asyncio.to_thread(create_key_sync, url, SECRET, "ci", Role.ADMIN)
    expired = await asyncio.to_thread(
        create_key_sync, url, SECRET, "old", Role.RUNNER, datetime.now(UTC) - timedelta(seconds=1)
    )
    keys = (await coordinator.client.get("/keys")).json()
    assert {(k["name"], k["active"]) for k in keys} == {("tests", True), ("ci", True), ("old", False)}
    assert all(k["last_used_at"] for k in keys if k["name"] == "tests")
    gone = await coordinator.client.get("/keys", headers={"Authorization": f"Bearer {expired}"})
    assert gone.status_code == 401

    as_other = {"Authorization": f"Bearer {other}"}
    assert (await coordinator.client.get("/keys", headers=as_other)).status_code == 200
    assert (await coordinator.client.delete(f"/keys/{other[:10]}")).status_code == 204
    assert (await coordinator.client.get("/keys", headers=as_other)).status_code == 401
    assert (await coordinator.client.delete("/keys/nope")).status_code == 404
