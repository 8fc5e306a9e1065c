"""The assembled service (create_app + lifespan) over the real NATS and PostgreSQL."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI
from nats.aio.client import Client as NatsClient

from services.search_proxy.http_app import create_app
from services.search_proxy.settings import SearchProxySettings
from yardstick.api.answer_messages import AnswerRequest, AnswerResponse
from yardstick.api.search_messages import SearchRequest, SearchResponse
from yardstick.api.topology import Topology

pytestmark = [pytest.mark.integration, pytest.mark.timeout(60)]


@pytest.fixture
async def app(database_url: str, nats_url: str, topology: Topology) -> AsyncIterator[FastAPI]:
    settings = SearchProxySettings(
        database_url=database_url,
        nats_url=nats_url,
        nats_namespace=topology.namespace,
        log_json=False,
        mistral_api_key=None,  # the offline answerer, whatever the environment holds
    )
    application = create_app(settings)
    async with application.router.lifespan_context(application):
        yield application


@pytest.fixture
async def http(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://search-proxy") as client:
        yield client


async def ask(nc: NatsClient, topology: Topology, payload: bytes) -> SearchResponse:
    reply = await nc.request(topology.search_query, payload, timeout=10)
    return SearchResponse.model_validate_json(reply.data)


async def test_search_query_is_answered_over_nats(
    app: FastAPI, nats_client: NatsClient, topology: Topology
) -> None:
    request = SearchRequest(query="redis outage", mode="thorough", limit=3)
    first = await ask(nats_client, topology, request.model_dump_json().encode())
    assert first.ok, first.error
    assert first.results[0].id == "pr:redis-outage-postmortem"
    assert first.backend == "corpus" and not first.cached
    second = await ask(nats_client, topology, request.model_dump_json().encode())
    assert second.cached and [h.id for h in second.results] == [h.id for h in first.results]


async def test_malformed_nats_request_gets_an_error_reply_not_silence(
    app: FastAPI, nats_client: NatsClient, topology: Topology
) -> None:
    bad = await ask(nats_client, topology, json.dumps({"query": "", "limit": 0}).encode())
    assert not bad.ok and bad.error is not None
    assert "query" in bad.error and "limit" in bad.error
    garbage = await ask(nats_client, topology, b"not json")
    assert not garbage.ok


async def test_post_v1_search(http: httpx.AsyncClient) -> None:
    response = await http.post(
        "/v1/search", json={"query": "hydration mismatch", "filters": {"source_type": "sentry_error"}}
    )
    assert response.status_code == 200
    body = SearchResponse.model_validate(response.json())
    assert body.ok and body.results[0].id == "error:react-hydration-mismatch"
    assert all(hit.source_type == "sentry_error" for hit in body.results)


@pytest.mark.parametrize(
    "payload",
    [
        {"query": ""},
        {"query": "x", "limit": 0},
        {"query": "x", "mode": "psychic"},
        {"query": "x", "filters": {"colour": 1}},
    ],
)
async def test_post_v1_search_rejects_bad_input_with_422(
    http: httpx.AsyncClient, payload: dict[str, object]
) -> None:
    assert (await http.post("/v1/search", json=payload)).status_code == 422


async def test_degrade_and_healthz(http: httpx.AsyncClient) -> None:
    full = await http.post("/v1/search", json={"query": "redis outage", "degrade": 1.0})
    assert full.json()["ok"] and full.json()["results"] == []
    health = (await http.get("/healthz")).json()
    assert health["status"] == "ok" and health["default_backend"] == "corpus"
    assert len(health["corpus_version"]) == 16


async def test_search_answer_over_nats_cites_the_retrieved_documents(
    app: FastAPI, nats_client: NatsClient, topology: Topology
) -> None:
    request = AnswerRequest(query="What caused the Redis outage on Dec 1st?", mode="thorough")
    reply = await nats_client.request(topology.search_answer, request.model_dump_json().encode(), timeout=10)
    answer = AnswerResponse.model_validate_json(reply.data)
    assert answer.ok, answer.error
    assert answer.answerer == "extractive" and not answer.abstained
    assert "pr:redis-outage-postmortem" in [c.id for c in answer.citations]
    assert "connection pool exhaustion" in answer.answer and "[1]" in answer.answer
    assert len(answer.contexts) == len(answer.results) <= 5
    bad = await nats_client.request(topology.search_answer, b'{"query": ""}', timeout=10)
    refused = AnswerResponse.model_validate_json(bad.data)
    assert not refused.ok and refused.error is not None and "query" in refused.error


async def test_post_v1_answer(http: httpx.AsyncClient) -> None:
    response = await http.post("/v1/answer", json={"query": "What is the rate limit per API key?"})
    assert response.status_code == 200
    body = AnswerResponse.model_validate(response.json())
    assert body.ok and "100 requests per second" in body.answer
    degraded = AnswerResponse.model_validate(
        (
            await http.post("/v1/answer", json={"query": "What is the rate limit per API key?", "degrade": 1})
        ).json()
    )
    assert degraded.ok and degraded.abstained and degraded.citations == []
    mistral = AnswerResponse.model_validate(
        (await http.post("/v1/answer", json={"query": "rate limit", "answerer": "mistral"})).json()
    )
    assert not mistral.ok and mistral.error is not None and "MISTRAL_API_KEY" in mistral.error
    assert (await http.post("/v1/answer", json={"query": "x", "limit": 0})).status_code == 422


@pytest.mark.parametrize("path", ["/v1/search", "/v1/answer"])
@pytest.mark.parametrize(
    "body",
    [
        '{"query": "a\\u0000b"}',
        '{"query": "\\ud800"}',
        '{"query": "x", "degrade": NaN}',
        '{"query": "x", "limit": 1e400}',
    ],
)
async def test_what_json_or_postgres_cannot_hold_is_a_422_naming_it(
    http: httpx.AsyncClient, path: str, body: str
) -> None:
    response = await http.post(path, content=body.encode(), headers={"Content-Type": "application/json"})
    assert response.status_code == 422, response.text
    assert response.json()["detail"].startswith("invalid request: body")


async def test_a_body_over_the_limit_is_refused_unread(http: httpx.AsyncClient) -> None:
    response = await http.post("/v1/search", json={"query": "x" * (2**20 + 1)})
    assert response.status_code == 413 and "MAX_BODY_BYTES" in response.json()["detail"]
