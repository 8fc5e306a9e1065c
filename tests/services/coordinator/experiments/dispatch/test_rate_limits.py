"""A rate-limited provider (429 + ``Retry-After``) slows a run down but never turns it into errors;
two experiments calling one limited endpoint share its limit; a target that is really down still
ends as errors after the bounded attempts. Real NATS, Postgres, coordinator and eval workers."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from nats.aio.client import Client as NatsClient
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.evaluator.worker import EvalWorker
from tests.rate_limited_server import RateLimitedServer
from tests.services.coordinator.harness import Coordinator, synthetic_items
from tests.services.evaluator.in_process import running_workers
from yardstick.api.topology import Topology

pytestmark = pytest.mark.integration

LOOPBACK = "127.0.0.0/8,::1/128"


@pytest.fixture
async def loopback_workers(
    nats_url: str, topology: Topology, nats_client: NatsClient
) -> AsyncIterator[list[EvalWorker]]:
    """Two workers with 128 task slots each, allowed to call a loopback target, quick to back off."""
    async with running_workers(
        nats_url,
        topology,
        eval_concurrency=128,
        target_allowed_networks=LOOPBACK,
        eval_backoff_base_s=0.05,
        eval_backoff_max_s=0.2,
    ) as started:
        yield started


@pytest.fixture
async def limited() -> AsyncIterator[RateLimitedServer]:
    server = RateLimitedServer(limit=50)
    await server.start()
    yield server
    await server.stop()


def http_experiment(name: str, url: str, concurrency: int, **target: Any) -> dict[str, Any]:
    return {
        "name": name,
        "dataset": "syn",
        "target": {
            "kind": "http",
            "url": url,
            "body_template": {"q": "{input.customer_utterance}"},
            **target,
        },
        "concurrency": concurrency,
        "timeout_s": 10,
        "evaluators": ["json_valid"],
        "run_evaluators": [],
    }


async def start(coordinator: Coordinator, body: dict[str, Any]) -> str:
    coordinator.settings.target_allowed_networks = LOOPBACK
    response = await coordinator.client.post("/experiments", json=body)
    assert response.status_code == 202, response.text
    experiment_id: str = response.json()["id"]
    return experiment_id


async def test_a_throttling_target_completes_without_errors(
    coordinator: Coordinator, loopback_workers: list[EvalWorker], limited: RateLimitedServer
) -> None:
    await coordinator.push("syn", synthetic_items(1000))
    experiment_id = await start(coordinator, http_experiment("limited", limited.url, 200))
    done = await coordinator.finished(experiment_id, timeout=60)
    assert done["status"] == "completed", done
    assert done["progress"]["errors"] == 0 and done["progress"]["done"] == 1000, done["progress"]
    assert limited.throttled > 0, "the server never throttled: the test proves nothing"
    assert len(limited.accepted) == 1000  # every item called once successfully, none twice
    assert limited.max_accepted_rate <= 50
    # every 429 the server sent is counted once, and shown with the concurrency the workers settled on
    assert done["progress"]["throttled"] == limited.throttled
    assert 1 <= done["progress"]["target_concurrency"] <= 200


async def test_two_experiments_share_one_rate_limit(
    coordinator: Coordinator, loopback_workers: list[EvalWorker], limited: RateLimitedServer
) -> None:
    await coordinator.push("syn", synthetic_items(250))
    # 40/s each is 80/s for the two if the limit were per experiment; shared, they stay under 50/s
    # (the margin absorbs starts delayed by this busy test process, see target_gate.LATE_START_S)
    rate = {"rate_limit": {"requests": 40, "per": "second"}}
    first = await start(coordinator, http_experiment("one", limited.url, 100, **rate))
    second = await start(coordinator, http_experiment("two", limited.url, 100, **rate))
    for experiment_id in (first, second):
        done = await coordinator.finished(experiment_id, timeout=60)
        assert done["status"] == "completed" and done["progress"]["errors"] == 0, done
    assert len(limited.accepted) == 500
    assert limited.max_rate <= 50, f"{limited.max_rate} requests in one second, the provider allows 50"


async def test_a_target_that_always_fails_still_ends_as_errors(
    coordinator: Coordinator, loopback_workers: list[EvalWorker], limited: RateLimitedServer
) -> None:
    limited.fail_status = 500
    await coordinator.push("syn", synthetic_items(3))
    experiment_id = await start(coordinator, http_experiment("down", limited.url, 3))
    done = await coordinator.finished(experiment_id, timeout=60)
    assert done["progress"]["errors"] == 3, done
    items = (await coordinator.client.get(f"/experiments/{experiment_id}/items")).json()
    errors = (
        [item["error"] for item in items["items"]] if isinstance(items, dict) else [i["error"] for i in items]
    )
    assert all("answered 500" in e and "gave up after 4 attempts" in e for e in errors), errors
    assert len(limited.arrivals) == 3 * 4


async def test_judges_share_their_providers_limit_and_wait_out_its_429s(
    coordinator: Coordinator,
    loopback_workers: list[EvalWorker],
    limited: RateLimitedServer,
    session_factory: async_sessionmaker[AsyncSession],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A rubric judge on 200 items at C = 100, its model limited to 30 requests/s, with no LLM
    retries allowed: without the workers' provider gate every 429 would be a "not measured"."""
    limited.limit = 30
    monkeypatch.setenv("JUDGE_PROVIDER", "openai")
    monkeypatch.setenv("JUDGE_MODEL", "limited-model")
    monkeypatch.setenv("OPENAI_BASE_URL", limited.url.removesuffix("/answer"))
    monkeypatch.setenv("LLM_MAX_RETRIES", "0")
    target = RateLimitedServer(limit=100_000)
    await target.start()
    try:
        await coordinator.push("syn", synthetic_items(200))
        body = http_experiment("judged", target.url, 100)
        body["evaluators"] = [{"name": "llm_rubric", "args": {"criteria": "Polite.", "metric": "polite"}}]
        body["judge_cache"] = False
        experiment_id = await start(coordinator, body)
        done = await coordinator.finished(experiment_id, timeout=60)
    finally:
        await target.stop()
    assert done["status"] == "completed" and done["progress"]["errors"] == 0, done
    assert limited.throttled > 0, "the model never throttled: the test proves nothing"
    assert done["progress"]["throttled"] == limited.throttled  # the judges' 429s, each counted once
    async with session_factory() as session:
        measured, total = (
            await session.execute(
                text(
                    "SELECT count(value), count(*) FROM scores WHERE experiment_id = :e AND name = 'polite'"
                ),
                {"e": experiment_id},
            )
        ).one()
    assert (measured, total) == (200, 200)
    assert len(limited.accepted) == 200  # each verdict asked once successfully
