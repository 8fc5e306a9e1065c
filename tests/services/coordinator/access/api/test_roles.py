"""Roles on API keys: every route of the OpenAPI document declares the role it needs, and every role
is allowed or refused (403) on every route exactly as declared, against a real coordinator. A new
route without a declared role fails here (and is refused to every key at run time)."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

from services.coordinator.http.deps import ROLE_EXTENSION
from shared.db.api_keys import create_key_sync
from tests.services.coordinator.harness import SECRET, Coordinator
from yardstick.api.roles import Role

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]

PUBLIC = {("get", "/healthz"), ("get", "/metrics")}  # counts for probes and Prometheus, no content
RANKED = [Role.VIEWER, Role.RUNNER, Role.ADMIN, Role.OWNER]


def _operations(spec: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(method, path, op) for path, ops in spec["paths"].items() for method, op in ops.items()]


def _concrete(path: str) -> str:
    """A path with every parameter filled with a value no row has (so nothing is changed)."""
    return re.sub(
        r"\{(\w+)(?::path)?\}", lambda m: "9" if m.group(1) in ("version", "position") else "none", path
    )


def test_the_role_table_grants_as_documented() -> None:
    for needed in RANKED:
        assert {r for r in Role if r.grants(needed)} == set(RANKED[RANKED.index(needed) :])
    assert {r for r in Role if r.grants(Role.INGEST)} == {Role.INGEST, Role.ADMIN, Role.OWNER}
    assert not Role.INGEST.grants(Role.VIEWER), "an ingest key reads nothing"
    assert Role.ADMIN.may_create(Role.ADMIN) and not Role.ADMIN.may_create(Role.OWNER)
    assert not Role.RUNNER.may_create(Role.VIEWER)


async def test_every_route_against_every_role(coordinator: Coordinator) -> None:
    spec = (await coordinator.client.get("/openapi.json")).json()
    keys = {
        role: await asyncio.to_thread(
            create_key_sync, coordinator.settings.database_url, SECRET, f"matrix-{role}", role
        )
        for role in Role
    }
    operations = [(m, p, op) for m, p, op in _operations(spec) if (m, p) not in PUBLIC]
    undeclared = [f"{m.upper()} {p}" for m, p, op in operations if ROLE_EXTENSION not in op]
    assert not undeclared, f"routes that declare no role: {undeclared}"
    checked = 0
    for method, path, op in operations:
        needed = Role(op[ROLE_EXTENSION])
        for role, key in keys.items():
            response = await coordinator.client.request(
                method.upper(),
                _concrete(path),
                json={} if method in ("post", "put") else None,
                headers={"Authorization": f"Bearer {key}"},
            )
            allowed = role.grants(needed)
            assert (response.status_code != 403) == allowed, (
                f"{role} on {method.upper()} {path} (needs {needed}): {response.status_code} "
                f"{response.text[:200]}"
            )
            if not allowed:
                assert f"needs the {needed} role" in response.json()["detail"]
            checked += 1
    assert checked >= 30 * len(Role)


async def test_keys_are_created_up_to_the_callers_role_and_say_their_role(coordinator: Coordinator) -> None:
    made = await coordinator.client.post("/keys", json={"name": "ci", "role": "runner", "expires_in": "30d"})
    assert made.status_code == 201, made.text
    runner_key = made.json()["key"]
    assert made.json()["role"] == "runner" and made.json()["expires_at"]
    as_runner = {"Authorization": f"Bearer {runner_key}"}
    assert (await coordinator.client.get("/experiments", headers=as_runner)).status_code == 200
    refused = await coordinator.client.post("/keys", json={"name": "x", "role": "viewer"}, headers=as_runner)
    assert refused.status_code == 403
    admin = (await coordinator.client.post("/keys", json={"name": "a", "role": "admin"})).json()["key"]
    as_admin = {"Authorization": f"Bearer {admin}"}
    owner = await coordinator.client.post("/keys", json={"name": "o", "role": "owner"}, headers=as_admin)
    assert owner.status_code == 403 and "only an owner key" in owner.json()["detail"]
    bad = await coordinator.client.post("/keys", json={"name": "b", "role": "runner", "expires_in": "soon"})
    assert bad.status_code == 422
    listed = {k["name"]: k["role"] for k in (await coordinator.client.get("/keys")).json()}
    assert listed["ci"] == "runner" and listed["tests"] == "owner"
