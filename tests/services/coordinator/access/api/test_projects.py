"""Projects against a real coordinator: another project's dataset, experiment, comparison, prompt,
sampled traffic and keys are 404 (never 403), listings show only one's own project, the same names
live in two projects, owner keys act anywhere, and project keys stay in their project."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from services.coordinator.datasets.store import datasets as dataset_store
from services.coordinator.http.deps import ROLE_EXTENSION
from services.evaluator.worker import EvalWorker
from tests.services.coordinator.conftest import experiment_body
from tests.services.coordinator.harness import Coordinator, ScriptedAgent, synthetic_items
from tests.services.sampler.sampled_traces import store
from tests.services.sampler.spans import trace_hex
from yardstick.api.projects import PROJECT_HEADER

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]


def _as(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


async def _project_with_admin(c: httpx.AsyncClient, name: str) -> str:
    assert (await c.post("/projects", json={"name": name})).status_code == 201
    made = await c.post("/keys", json={"name": f"{name}-admin", "role": "admin", "project": name})
    assert made.status_code == 201 and made.json()["project"] == name, made.text
    key: str = made.json()["key"]
    return key


async def _fill(coordinator: Coordinator, headers: dict[str, str]) -> dict[str, Any]:
    """A dataset, two finished experiments and their comparison, a prompt: one project's objects."""
    c = coordinator.client
    await c.post("/datasets", json={"name": "syn", "kind": "drive_thru"}, headers=headers)
    pushed = await c.post(
        "/datasets/syn/items", json={"items": synthetic_items(3), "replace": True}, headers=headers
    )
    assert pushed.status_code == 200, pushed.text
    base = (await c.post("/experiments", json=experiment_body(name="base"), headers=headers)).json()["id"]
    await coordinator.wait_until(base, lambda b: b["status"] == "completed", 60, headers=headers)
    cand_body = experiment_body(name="cand", baseline_id=base)
    cand = (await c.post("/experiments", json=cand_body, headers=headers)).json()["id"]
    finished = await coordinator.wait_until(cand, lambda b: b["status"] == "completed", 60, headers=headers)
    greet = {"name": "greet", "template": "hi", "labels": ["production"]}
    prompt = await c.post("/prompts", json=greet, headers=headers)
    assert prompt.status_code == 201, prompt.text
    return {"base": base, "cand": cand, "comparison": finished["comparison_id"]}


async def test_projects_are_isolated(
    coordinator: Coordinator, workers: list[EvalWorker], agent: ScriptedAgent
) -> None:
    c = coordinator.client
    team_b = _as(await _project_with_admin(c, "team-b"))
    ours = await _fill(coordinator, {})  # the owner key's own project: default
    theirs = await _fill(coordinator, team_b)  # the same names in team-b

    reads = {
        "dataset": "/datasets/syn",
        "versions": "/datasets/syn/versions",
        "experiment": "/experiments/{base}",
        "items": "/experiments/{base}/items",
        "report": "/experiments/{base}/report",
        "comparison": "/comparisons/{comparison}",
    }
    for label, template in reads.items():
        for ids, headers, other_ids in ((ours, {}, theirs), (theirs, team_b, ours)):
            mine = await c.get(template.format(**ids), headers=headers)
            assert mine.status_code == 200, (label, mine.text)
            if "{" in template:  # an id of the other project: not found, as if it did not exist
                other = await c.get(template.format(**other_ids), headers=headers)
                assert other.status_code == 404, (label, other.status_code)
    # Listings show one's own project only.
    listed = {e["id"] for e in (await c.get("/experiments", headers=team_b)).json()}
    assert listed == {theirs["base"], theirs["cand"]}
    assert [d["name"] for d in (await c.get("/datasets", headers=team_b)).json()] == ["syn"]
    # Writes by id into another project are not found either.
    assert (await c.delete(f"/experiments/{ours['base']}", headers=team_b)).status_code == 404
    assert (await c.post(f"/experiments/{ours['cand']}/cancel", headers=team_b)).status_code == 404
    cross = {"baseline_id": ours["base"], "candidate_id": theirs["cand"]}
    assert (await c.post("/comparisons", json=cross, headers=team_b)).status_code == 404
    # Prompts: one name, one version in each project, labels moved in one only.
    await c.post("/prompts", json={"name": "greet", "template": "hello"}, headers=team_b)
    moved = await c.put("/prompts/greet/labels/production", json={"version": 2}, headers=team_b)
    assert moved.status_code == 200, moved.text
    ours_prompt = (await c.get("/prompts/resolve", params={"ref": "greet@production"})).json()
    assert ours_prompt["template"] == "hi"
    await c.post(
        "/prompts", json={"name": "only-b", "template": "b", "labels": ["production"]}, headers=team_b
    )
    assert (await c.get("/prompts/only-b/versions")).status_code == 404
    assert (await c.get("/prompts/resolve", params={"ref": "only-b"})).status_code == 404
    assert "only-b" not in {p["name"] for p in (await c.get("/prompts")).json()}
    # Keys: an admin lists and revokes its own project's keys only, and cannot create elsewhere.
    assert {k["project"] for k in (await c.get("/keys", headers=team_b)).json()} == {"team-b"}
    default_key = next(k for k in (await c.get("/keys")).json() if k["name"] == "tests")
    assert (await c.delete(f"/keys/{default_key['prefix']}", headers=team_b)).status_code == 404
    viewer_in_default = {"name": "x", "role": "viewer", "project": "default"}
    elsewhere = await c.post("/keys", json=viewer_in_default, headers=team_b)
    assert elsewhere.status_code == 404
    # Naming another project: an owner key may; any other key finds no such project.
    as_owner_in_b = await c.get(f"/experiments/{theirs['base']}", headers={PROJECT_HEADER: "team-b"})
    assert as_owner_in_b.status_code == 200
    assert (await c.get("/experiments", headers={**team_b, PROJECT_HEADER: "default"})).status_code == 404
    assert (await c.get("/experiments", headers={PROJECT_HEADER: "no-such"})).status_code == 404
    assert [p["name"] for p in (await c.get("/projects", headers=team_b)).json()] == ["team-b"]
    assert {p["name"] for p in (await c.get("/projects")).json()} == {"default", "team-b"}


async def test_traffic_and_online_config_are_per_project(coordinator: Coordinator) -> None:
    c = coordinator.client
    team_b = _as(await _project_with_admin(c, "team-b"))
    assert (await c.put("/online/config", json={"rate": 1.0}, headers=team_b)).status_code == 200
    assert (await c.get("/online/config")).json()["rate"] != 1.0  # default's config is its own
    sessions = coordinator.runtime.sessions
    assert await store(sessions, 0, project="team-b", conversation="shared-conversation") == "stored"
    assert await store(sessions, 1, project="nobody") == "unknown_project"

    theirs = (await c.get("/traces", headers=team_b)).json()["items"]
    assert [t["conversation_id"] for t in theirs] == ["shared-conversation"]
    assert (await c.get("/traces")).json()["items"] == []
    to_dataset = f"/traces/{trace_hex(0)}/dataset"
    assert (await c.post(to_dataset, json={"dataset": "prod"})).status_code == 404
    assert (await c.post(to_dataset, json={"dataset": "prod"}, headers=team_b)).status_code == 200
    async with sessions() as session:
        assert await dataset_store.find_dataset(session, "prod") is not None  # unscoped: it exists …
    assert (await c.get("/datasets/prod")).status_code == 404  # … in team-b only
    audit = (await c.get("/audit", headers=team_b)).json()
    assert {e["action"] for e in audit} >= {"traffic.trace_to_dataset", "online.config_change", "key.create"}
    assert all(e["project"] == "team-b" for e in audit)
    owner_audit = (await c.get("/audit")).json()
    assert any(e["action"] == "project.create" and e["project"] is None for e in owner_audit)
    assert not any(e["project"] == "team-b" for e in owner_audit)


async def test_every_route_declares_a_role_including_projects(coordinator: Coordinator) -> None:
    spec = (await coordinator.client.get("/openapi.json")).json()
    assert spec["paths"]["/projects"]["post"][ROLE_EXTENSION] == "owner"
    assert spec["paths"]["/projects"]["get"][ROLE_EXTENSION] == "viewer"
