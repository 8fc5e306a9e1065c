"""The audit log: each kind of change is one row naming the key that made it (written with the change
itself); the log pages back in time, filters by action, needs an admin key and is append-only."""

from __future__ import annotations

import asyncio

import psycopg
import pytest

from shared.db.api_keys import create_key_sync
from shared.db.session import plain_url
from tests.services.coordinator.harness import SECRET, Coordinator, synthetic_items
from yardstick.api.roles import Role

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]


async def test_each_change_is_recorded_with_its_key_and_the_log_is_append_only(
    coordinator: Coordinator,
) -> None:
    c = coordinator.client
    url = coordinator.settings.database_url
    await asyncio.to_thread(create_key_sync, url, SECRET, "made-on-the-db", Role.VIEWER)
    made = (await c.post("/keys", json={"name": "ci", "role": "runner"})).json()
    assert (await c.delete(f"/keys/{made['prefix']}")).status_code == 204
    await coordinator.push("syn", synthetic_items(2), kind="generic")
    assert (await c.delete("/datasets/syn")).status_code == 204
    await c.post("/prompts", json={"name": "greet", "template": "one", "labels": ["production"]})
    await c.post("/prompts", json={"name": "greet", "template": "two"})
    assert (await c.put("/prompts/greet/labels/production", json={"version": 2})).status_code == 200
    config = (await c.get("/online/config")).json()
    assert (await c.put("/online/config", json={**config, "rate": 0.5})).status_code == 200

    log = (await c.get("/audit")).json()
    by_action = {e["action"]: e for e in log}
    assert set(by_action) >= {
        "key.create",
        "key.revoke",
        "dataset.delete",
        "prompt.label_move",
        "online.config_change",
    }
    assert all(e["actor"]["key_name"] == "tests" for e in log if e["actor"]["key_id"] is not None)
    assert any(e["actor"]["key_name"] == "database (yardstick keys create)" for e in log)
    assert by_action["key.revoke"]["change"]["before"]["role"] == "runner"
    assert by_action["prompt.label_move"]["object_id"] == "greet@production"
    assert by_action["prompt.label_move"]["change"]["before"] == {"version": 1}
    assert by_action["prompt.label_move"]["change"]["after"] == {"version": 2}
    config_change = by_action["online.config_change"]["change"]
    assert (config_change["before"]["rate"], config_change["after"]["rate"]) == (config["rate"], 0.5)

    only = (await c.get("/audit", params={"action": "dataset.delete"})).json()
    assert [e["object_id"] for e in only] == ["syn"]
    newest = log[0]["at"]
    assert all(e["at"] < newest for e in (await c.get("/audit", params={"before": newest})).json())

    runner = await asyncio.to_thread(create_key_sync, url, SECRET, "runner", Role.RUNNER)
    refused = await c.get("/audit", headers={"Authorization": f"Bearer {runner}"})
    assert refused.status_code == 403

    for statement in ("DELETE FROM audit_events", "UPDATE audit_events SET key_name = 'someone else'"):
        with (
            psycopg.connect(plain_url(url)) as conn,
            pytest.raises(psycopg.errors.RaiseException, match="append-only"),
        ):
            conn.execute(statement)
