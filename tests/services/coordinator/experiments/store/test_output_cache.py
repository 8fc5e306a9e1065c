"""The output cache on the real NATS + Postgres: a rerun that changes only its evaluators is scored
from cached outputs, the target is not called, and the hits show in progress, events and aggregates."""

from __future__ import annotations

import asyncio
import contextlib

import pytest
from nats.aio.client import Client as NatsClient
from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.evaluator.worker import EvalWorker
from shared.db.models import OutputCacheEntry
from tests.services.coordinator.conftest import experiment_body
from tests.services.coordinator.harness import Coordinator, ScriptedAgent, synthetic_items
from yardstick.api.experiment_events import ExperimentEvent
from yardstick.api.topology import Topology

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]

CACHED = {"cache": {"ttl_s": 3600}}


async def _run(coordinator: Coordinator, **overrides: object) -> dict[str, object]:
    accepted = await coordinator.client.post("/experiments", json=experiment_body(**overrides))
    assert accepted.status_code == 202, accepted.text
    return await coordinator.finished(accepted.json()["id"])


async def test_rerun_with_other_evaluators_calls_no_target(
    coordinator: Coordinator,
    workers: list[EvalWorker],
    agent: ScriptedAgent,
    nats_client: NatsClient,
    topology: Topology,
) -> None:
    await coordinator.push("syn", synthetic_items(12))
    first = await _run(coordinator, name="first", **CACHED)
    assert agent.calls == 12 and first["progress"]["cache_hits"] == 0
    assert first["aggregates"]["cache_hits"] == 0  # type: ignore[index]

    events: list[ExperimentEvent] = []
    completed = asyncio.Event()

    async def on_event(msg: object) -> None:
        event = ExperimentEvent.model_validate_json(msg.data)  # type: ignore[attr-defined]
        events.append(event)
        if event.kind == "completed":
            completed.set()

    sub = await nats_client.subscribe(topology.subject("experiment.events.*"), cb=on_event)
    second = await _run(coordinator, name="second", evaluators=["no_hallucinated_items"], **CACHED)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(completed.wait(), 10)
    await sub.unsubscribe()

    assert agent.calls == 12, "a cached output was fetched from the target again"
    assert second["status"] == "completed"
    assert second["progress"]["cache_hits"] == 12  # type: ignore[index]
    assert second["aggregates"]["cache_hits"] == 12  # type: ignore[index]
    assert second["aggregates"]["metrics"]["no_hallucinated_items"]["count"] == 12  # type: ignore[index]
    assert events and all(e.cache_hits == 12 for e in events)
    report = (await coordinator.client.get(f"/experiments/{second['id']}/report")).json()
    assert report["aggregates"]["cache_hits"] == 12

    # another target configuration, or the cache off, calls the target
    await _run(
        coordinator,
        name="other-model",
        target={"kind": "agent", "prompt": None, "model": {"temperature": 0.5}},
        **CACHED,
    )
    assert agent.calls == 24
    await _run(coordinator, name="uncached")
    assert agent.calls == 36


async def test_expired_entries_are_not_used(
    coordinator: Coordinator,
    workers: list[EvalWorker],
    agent: ScriptedAgent,
    session_factory: async_sessionmaker[AsyncSession],
) -> None:
    await coordinator.push("syn", synthetic_items(5))
    await _run(coordinator, name="first", repetitions=2, **CACHED)
    assert agent.calls == 10
    warm = await _run(coordinator, name="warm", repetitions=2, **CACHED)
    assert agent.calls == 10 and warm["progress"]["cache_hits"] == 10  # type: ignore[index]

    async with session_factory() as session:
        await session.execute(update(OutputCacheEntry).values(expires_at=OutputCacheEntry.created_at))
        await session.commit()
    cold = await _run(coordinator, name="expired", repetitions=2, **CACHED)
    assert agent.calls == 20 and cold["progress"]["cache_hits"] == 0  # type: ignore[index]

    short = await _run(coordinator, name="short-ttl", repetitions=2, cache={"ttl_s": 0.001})
    assert agent.calls == 30, "entries older than this experiment's ttl_s were used"
    assert short["progress"]["cache_hits"] == 0  # type: ignore[index]


async def test_moving_the_prompt_label_misses_the_cache(
    coordinator: Coordinator, workers: list[EvalWorker], agent: ScriptedAgent
) -> None:
    """The key holds the prompt the label names now, not the label: outputs of the old prompt are
    not served for the new one, and come back when the label does."""
    prompt = "drive-thru/orchestrator"

    async def push(template: str) -> int:
        pushed = await coordinator.client.post("/prompts", json={"name": prompt, "template": template})
        assert pushed.status_code == 201, pushed.text
        return int(pushed.json()["version"])

    async def label(version: int) -> None:
        moved = await coordinator.client.put(f"/prompts/{prompt}/labels/staging", json={"version": version})
        assert moved.status_code == 200, moved.text

    first, second = await push("You take orders. v1"), await push("You take orders. v2")
    await coordinator.push("syn", synthetic_items(4))
    target = {"kind": "agent", "prompt": f"{prompt}@staging"}
    await label(first)
    await _run(coordinator, name="v1", target=target, **CACHED)
    assert agent.calls == 4
    await label(second)
    moved = await _run(coordinator, name="v2", target=target, **CACHED)
    assert agent.calls == 8 and moved["progress"]["cache_hits"] == 0  # type: ignore[index]
    await label(first)
    back = await _run(coordinator, name="v1-again", target=target, **CACHED)
    assert agent.calls == 8 and back["progress"]["cache_hits"] == 4  # type: ignore[index]


async def test_a_cancelled_run_caches_what_it_finished(
    coordinator: Coordinator, workers: list[EvalWorker], agent: ScriptedAgent
) -> None:
    """Cancelled after at least two items were stored: a rerun takes those from the cache and calls
    the target only for the rest."""
    await coordinator.push("syn", synthetic_items(10))
    agent.gate = asyncio.Event()  # every call waits
    body = experiment_body(name="cut", concurrency=2, **CACHED)
    experiment_id = (await coordinator.client.post("/experiments", json=body)).json()["id"]
    await coordinator.wait_until(experiment_id, lambda b: b["progress"]["in_flight"] == 2)
    agent.gate.set()  # the two waiting calls answer...
    agent.gate = asyncio.Event()  # ...and the next ones wait again
    await coordinator.wait_until(experiment_id, lambda b: b["progress"]["done"] >= 2)
    assert (await coordinator.client.post(f"/experiments/{experiment_id}/cancel")).status_code == 200
    agent.gate.set()
    agent.gate = None
    first = await coordinator.wait_until(experiment_id, lambda b: b["progress"]["in_flight"] == 0)
    calls_before = agent.calls

    rerun = await _run(coordinator, name="rerun", **CACHED)
    hits = rerun["progress"]["cache_hits"]  # type: ignore[index]
    assert rerun["status"] == "completed"
    assert 2 <= hits <= first["progress"]["done"]
    assert agent.calls == calls_before + 10 - hits, "a cached output was fetched from the target again"
