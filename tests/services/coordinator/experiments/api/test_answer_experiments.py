"""The RAG track end to end on the real NATS + Postgres: the RAG golden set pushed, experiments with
the ``answer`` target answered by a real search-proxy (offline answerer) over ``search.answer``,
scored by the default RAG evaluators, and a degraded candidate flagged as a regression."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from fastapi import FastAPI

from services.evaluator.worker import EvalWorker
from services.search_proxy.http_app import create_app
from services.search_proxy.settings import DEFAULT_CORPUS, SearchProxySettings
from shared.datasets.retrieval_golden import golden_file_to_dataset
from tests.services.coordinator.harness import Coordinator
from yardstick.api.topology import Topology

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]

RAG_GOLDEN = DEFAULT_CORPUS.parent / "rag-golden-v1.json"
OFFLINE_JUDGES = ("faithfulness", "citation_precision", "answer_relevancy")


@pytest.fixture
async def search_proxy(database_url: str, nats_url: str, topology: Topology) -> AsyncIterator[FastAPI]:
    settings = SearchProxySettings(
        database_url=database_url,
        nats_url=nats_url,
        nats_namespace=topology.namespace,
        log_json=False,
        mistral_api_key=None,
    )
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        yield app


async def _run(coordinator: Coordinator, body: dict[str, Any]) -> dict[str, Any]:
    accepted = await coordinator.client.post(
        "/experiments", json={"dataset": "rag", "concurrency": 10} | body
    )
    assert accepted.status_code == 202, accepted.text
    return await coordinator.finished(accepted.json()["id"], timeout=120)


async def test_answer_target_runs_the_rag_golden_set_and_flags_a_degraded_candidate(
    coordinator: Coordinator,
    workers: list[EvalWorker],
    search_proxy: FastAPI,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("MISTRAL_API_KEY", raising=False)  # the judges skip: no network in tests
    dataset = golden_file_to_dataset(RAG_GOLDEN, json.loads(RAG_GOLDEN.read_text()))
    await coordinator.push("rag", dataset["items"], kind=dataset["kind"])

    baseline = await _run(coordinator, {"name": "rag-base", "target": {"kind": "answer"}})
    assert baseline["status"] == "completed", baseline
    total = len(dataset["items"])
    assert baseline["progress"]["done"] == total and baseline["progress"]["errors"] == 0
    metrics = baseline["aggregates"]["metrics"]
    assert metrics["citation_recall"]["mean"] >= 0.7
    assert metrics["citation_recall"]["count"] == total - 2  # the two null questions require none
    assert metrics["hallucination_rate"]["mean"] == pytest.approx(0.0)  # extractive: quotes only
    assert metrics["entity_recall"]["mean"] > 0.3

    page = (await coordinator.client.get(f"/experiments/{baseline['id']}/items", params={"limit": 1})).json()
    output = page["items"][0]["output"]
    assert output["answerer"] == "extractive"
    assert {"answer", "citations", "contexts", "results", "abstained"} <= set(output)
    scores = {s["name"]: s for s in page["items"][0]["scores"]}  # the rag defaults, judges included
    assert set(scores) == {"citation_recall", "hallucination_rate", "entity_recall", *OFFLINE_JUDGES}
    judged = [scores[name] for name in OFFLINE_JUDGES]
    assert all(s["value"] is None and s["comment"].startswith("skipped") for s in judged)

    # Half the questions retrieve nothing: the answer abstains and cites nothing. (At 0.3, seven
    # lost citations among 25 questions are not significant once Holm corrects for five metrics.)
    degraded = await _run(
        coordinator,
        {"name": "rag-degraded", "baseline_id": baseline["id"], "target": {"kind": "answer", "degrade": 0.5}},
    )
    assert degraded["status"] == "completed", degraded
    assert degraded["aggregates"]["metrics"]["citation_recall"]["mean"] < metrics["citation_recall"]["mean"]
    report = (await coordinator.client.get(f"/comparisons/{degraded['comparison_id']}")).json()["report"]
    assert degraded["regression"] is True
    assert "citation_recall" in report["regressions"]
