"""The coordinator behind its input guard (``shared/http/input_guard.py``): what Postgres cannot
store or JSON cannot say is refused with a 422 that names where, a body over the limit with 413
before it is read or the key checked, and nothing is left behind."""

from __future__ import annotations

import json

import httpx
import pytest

from services.coordinator.app import create_app
from tests.services.coordinator.conftest import experiment_body
from tests.services.coordinator.harness import Coordinator, synthetic_items

PROBLEM = "application/problem+json"


def raw(text: str) -> dict[str, object]:
    return {"content": text.encode(), "headers": {"Content-Type": "application/json"}}


@pytest.mark.integration
async def test_nul_nan_and_surrogates_get_422_and_leave_nothing(coordinator: Coordinator) -> None:
    c = coordinator.client
    cases = [
        c.post("/datasets", **raw('{"name": "x\\u0000y"}')),
        c.post("/datasets", **raw('{"name": "ok", "description": "\\ud800"}')),
        c.post("/experiments", **raw(json.dumps(experiment_body())[:-1] + ', "timeout_s": NaN}')),
        c.get("/experiments", params={"name": "a\x00b"}),
        c.get("/experiments/a%00b"),
        c.get("/comparisons/a%00b"),
    ]
    for request in cases:
        response = await request
        assert response.status_code == 422, response.text
        assert response.headers["content-type"] == PROBLEM
        body = response.json()
        assert body["status"] == 422 and body["errors"] and body["detail"].startswith("invalid request: ")
    assert (await c.get("/datasets")).json() == []


@pytest.mark.integration
async def test_under_the_web_ui_a_refusal_is_a_page(coordinator: Coordinator) -> None:
    page = await coordinator.client.get("/ui/experiments", params={"name": "a\x00b"})
    assert page.status_code == 422 and page.headers["content-type"].startswith("text/html")
    assert "This address was refused: invalid request: query.name: NUL characters" in page.text


@pytest.mark.integration
async def test_out_of_range_and_oversized_fields(coordinator: Coordinator) -> None:
    c = coordinator.client
    await coordinator.push("syn", synthetic_items(3))
    refused = {
        "dataset_version": await c.post("/experiments", json=experiment_body(dataset_version=3_000_000_000)),
        "position": await c.get("/review/queues/q/items/3000000000"),
        "window": await c.get("/online/metrics", params={"window": "99999999999999d"}),
        "url": await c.post(
            "/experiments", json=experiment_body(target={"kind": "http", "url": "not-a-url"})
        ),
        "file": await c.post(
            "/experiments", json=experiment_body(target={"kind": "http", "url": "file:///etc/passwd"})
        ),
        "metadata": await c.post("/experiments", json=experiment_body(metadata={"blob": "x" * 100_000})),
        "duplicates": await c.post("/datasets/syn/items", json={"items": synthetic_items(2) * 2}),
    }
    for what, response in refused.items():
        assert response.status_code == 422, (what, response.text)
        assert response.headers["content-type"] == PROBLEM, what
    assert "http(s) URL with a host" in refused["url"].json()["detail"]
    assert "longer than" in refused["window"].json()["detail"]
    assert "repeated: syn-0000, syn-0001" in refused["duplicates"].json()["detail"]
    assert (await c.get("/experiments")).json() == []


@pytest.mark.integration
async def test_too_many_tasks(coordinator: Coordinator) -> None:
    await coordinator.push("syn", synthetic_items(4))
    coordinator.settings.max_tasks_per_experiment = 10
    response = await coordinator.client.post("/experiments", json=experiment_body(repetitions=3))
    assert response.status_code == 422
    assert response.json()["detail"].startswith("12 tasks (4 items x 3 repetitions) is more than")
    assert (await coordinator.client.get("/experiments")).json() == []


@pytest.mark.integration
async def test_a_large_body_is_refused_before_reading_or_auth(coordinator: Coordinator) -> None:
    settings = coordinator.settings.model_copy(update={"max_body_bytes": 4096})
    app = create_app(settings)  # not started: the guard answers before anything else runs
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://c") as c:
        response = await c.post(
            "/datasets", content=b"x" * 10_000, headers={"Content-Type": "application/json"}
        )
        assert response.status_code == 413
        assert response.headers["content-type"] == PROBLEM
        assert "larger than" in response.json()["detail"]


@pytest.mark.integration
async def test_every_error_is_a_problem(coordinator: Coordinator) -> None:
    c = coordinator.client
    missing = await c.get("/experiments/00000000-0000-4000-8000-000000000000")
    assert missing.status_code == 404 and missing.headers["content-type"] == PROBLEM
    assert missing.json()["error"] == "ExperimentNotFound"
    route = await c.get("/nothing-here")
    assert route.status_code == 404 and route.json()["detail"].startswith("no such endpoint")
    unauthorized = await c.get("/experiments", headers={"Authorization": "Bearer nope"})
    assert unauthorized.status_code == 401 and unauthorized.json()["title"] == "Unauthorized"
