"""``/traces``: sampled traces listed with filters, read whole, added to a dataset; project-scoped."""

from __future__ import annotations

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.coordinator.datasets.store import datasets as dataset_store
from services.coordinator.traces.store import traces as trace_store
from services.sampler.project_configs import ProjectConfigs
from services.sampler.trace_handler import TraceHandler
from services.sampler.trace_store import TracePart
from shared.db.models import Dataset, DatasetVersion
from shared.evaluators.loading import process_registry
from tests.services.coordinator.access.api.test_projects import _as, _project_with_admin
from tests.services.coordinator.harness import Coordinator
from tests.services.sampler import sampled_traces
from tests.services.sampler.spans import batch, trace_hex, trace_spans
from yardstick.api.trace_record import Completeness

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]

Sessions = async_sessionmaker[AsyncSession]
CONFIG = {
    "rate": 1.0,
    "applications": {
        "support-bot": {"evaluators": [{"name": "tool_called", "args": {"tool": "lookup_order"}}]},
        "billing": {"evaluators": [{"name": "latency_budget", "args": {"max_ms": 1000}}]},
    },
}


async def store(sessions: Sessions, n: int, **kw: object) -> None:
    assert await sampled_traces.store(sessions, n, **kw) == "stored"


async def test_list_filter_read_and_add_to_dataset(coordinator: Coordinator) -> None:
    c = coordinator.client
    assert (await c.put("/online/config", json=CONFIG)).status_code == 200
    sessions = coordinator.runtime.sessions
    await store(sessions, 0)
    await store(sessions, 1, tool="refund", error=True)
    await store(sessions, 2, model="other-model")
    await store(sessions, 3, service="billing")

    everything = (await c.get("/traces")).json()
    assert everything["total"] == 4 and len(everything["items"]) == 4
    assert [t["trace_id"] for t in everything["items"]] == [
        trace_hex(n) for n in (3, 2, 1, 0)
    ]  # newest first

    def ids(page: dict[str, object]) -> set[str]:
        return {t["trace_id"] for t in page["items"]}  # type: ignore[attr-defined,index]

    async def find(**params: object) -> set[str]:
        response = await c.get("/traces", params=params)
        assert response.status_code == 200, response.text
        return ids(response.json())

    assert await find(service="support-bot") == {trace_hex(n) for n in (0, 1, 2)}
    assert await find(service="support-bot", model="other-model") == {trace_hex(2)}
    assert await find(error="true") == {trace_hex(1)}
    assert await find(tool="refund") == {trace_hex(1)}
    assert await find(below="tool_called=1") == {trace_hex(1)}  # asked for refund, not lookup_order
    assert await find(service="billing", below="latency_budget=1") == set()
    for params, total in (({"below": "tool_called=1"}, 1), ({"below": "tool_called=2"}, 3)):
        page = (await c.get("/traces", params=params)).json()  # a score filter alone: counted on the scores
        assert (page["total"], page["total_capped"]) == (total, False)
    assert await find(until="2020-01-01T00:00:00Z") == set()
    assert len(await find(limit=2, offset=1)) == 2
    bad = await c.get("/traces", params={"below": "tool_called"})
    assert bad.status_code == 422 and "EVALUATOR=VALUE" in bad.json()["detail"]

    row = next(t for t in everything["items"] if t["trace_id"] == trace_hex(0))
    assert row["scores"] == {"tool_called": 1.0} and row["model"] == "gpt-test"
    assert (row["input_tokens"], row["output_tokens"], row["span_count"]) == (50, 12, 4)
    apps = (await c.get("/traces/applications")).json()
    assert [(a["application"], a["traces"], a["errors"]) for a in apps] == [
        ("billing", 1, 0),
        ("support-bot", 3, 1),
    ]

    detail = (await c.get(f"/traces/{trace_hex(0)}")).json()
    record = detail["record"]
    assert record["input_messages"][0]["content"] == "Where is order 0?"
    assert record["output_messages"][0]["content"] == "Order 0 ships today."
    assert record["tool_calls"][0]["name"] == "lookup_order"
    assert record["tool_calls"][0]["arguments"] == {"order": 0}
    assert record["tool_calls"][0]["result"] == {"status": "shipped"}
    assert record["roots"][0]["name"] == "invoke_agent support" and len(record["roots"][0]["children"]) == 3
    assert detail["score_details"][0]["name"] == "tool_called"
    assert (await c.get(f"/traces/{'f' * 32}")).status_code == 404
    assert (await c.get("/traces/not-hex")).status_code == 422

    added = await c.post(f"/traces/{trace_hex(0)}/dataset", json={"dataset": "from-prod"})
    assert added.status_code == 200, added.text
    assert added.json()["version"] == 1 and added.json()["added"] == 1
    again = (await c.post(f"/traces/{trace_hex(0)}/dataset", json={"dataset": "from-prod"})).json()
    assert again["created_new_version"] is False  # the same item: nothing new
    versions = (await c.get("/datasets/from-prod/versions")).json()
    assert [(v["version"], v["status"]) for v in versions] == [(1, "needs_review")]
    async with sessions() as session:
        version_id = (
            await session.execute(select(DatasetVersion.id).join(Dataset).where(Dataset.name == "from-prod"))
        ).scalar_one()
        (item,) = await dataset_store.version_items(session, version_id)
    assert item.id == f"trace:{trace_hex(0)}" and item.input["query"] == "Where is order 0?"
    assert item.expected_output == {"response": "Order 0 ships today.", "tool_calls": ["lookup_order"]}
    assert item.metadata["review_status"] == "needs_review" and item.metadata["application"] == "support-bot"
    await c.post("/datasets", json={"name": "orders", "kind": "drive_thru"})
    refused = await c.post(f"/traces/{trace_hex(0)}/dataset", json={"dataset": "orders"})
    assert refused.status_code == 409
    audit = (await c.get("/audit")).json()
    assert any(e["action"] == "traffic.trace_to_dataset" and e["object_id"] == trace_hex(0) for e in audit)


async def test_another_projects_trace_is_not_found(coordinator: Coordinator) -> None:
    c = coordinator.client
    team_b = _as(await _project_with_admin(c, "team-b"))
    assert (await c.put("/online/config", json=CONFIG, headers=team_b)).status_code == 200
    await store(coordinator.runtime.sessions, 5, project="team-b")
    assert (await c.get(f"/traces/{trace_hex(5)}", headers=team_b)).status_code == 200
    assert (await c.get(f"/traces/{trace_hex(5)}")).status_code == 404
    assert (await c.get("/traces")).json()["total"] == 0
    added = await c.post(f"/traces/{trace_hex(5)}/dataset", json={"dataset": "x"})
    assert added.status_code == 404


async def test_a_trace_with_no_readable_input_is_stored_with_a_note_and_refused_as_an_item(
    coordinator: Coordinator,
) -> None:
    c = coordinator.client
    assert (await c.put("/online/config", json={"rate": 1.0})).status_code == 200
    handler = TraceHandler(
        coordinator.runtime.sessions,
        ProjectConfigs(coordinator.runtime.sessions, refresh_s=0.0),
        process_registry(),
    )
    span = trace_spans(7)[0].model_copy(
        update={"name": "handle_request", "attributes": {"http.route": "/ask"}}
    )
    group = batch([span], service="legacy-app").groups[0]
    part = TracePart("default", span.trace_id, [(group, span)], Completeness.ROOT_ENDED)
    assert await handler.handle(part) == "stored"

    record = (await c.get(f"/traces/{trace_hex(7)}")).json()["record"]
    assert record["input_messages"] == [] and record["output_messages"] == []
    [note] = record["notes"]
    assert note.startswith("not understood: none of the 1 spans follows a convention Yardstick reads")
    assert note.endswith("attributes seen: http.route")

    refused = await c.post(f"/traces/{trace_hex(7)}/dataset", json={"dataset": "from-prod"})
    assert refused.status_code == 422, refused.text
    assert refused.headers["content-type"] == "application/problem+json"
    assert "no readable input" in refused.json()["detail"] and "not understood" in refused.json()["detail"]
    assert (await c.get("/datasets/from-prod/versions")).status_code == 404  # nothing was created


async def test_the_total_stops_counting_at_its_bound_and_says_so(
    coordinator: Coordinator, monkeypatch: pytest.MonkeyPatch
) -> None:
    c = coordinator.client
    assert (await c.put("/online/config", json=CONFIG)).status_code == 200
    for n in range(3):
        await store(coordinator.runtime.sessions, n)
    monkeypatch.setattr(trace_store, "COUNT_UP_TO", 2)
    page = (await c.get("/traces", params={"limit": 1})).json()
    assert (page["total"], page["total_capped"], len(page["items"])) == (2, True, 1)
    monkeypatch.setattr(trace_store, "COUNT_UP_TO", 3)
    page = (await c.get("/traces", params={"limit": 1})).json()
    assert (page["total"], page["total_capped"]) == (3, False)
