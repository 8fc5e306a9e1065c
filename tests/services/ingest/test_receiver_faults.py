"""The receiver when NATS goes away (503 + Retry-After, then the exporter's own retry delivers,
none lost, none doubled) and when it is flooded, on each export path (429 + Retry-After, nothing
queued or held, the retry stored once)."""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import nats
import pytest
from nats.aio.client import Client as NatsClient
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.trace.export import SpanExportResult

from services.stack.servers import free_port, start_nats
from shared.db.api_keys import create_key_sync
from shared.messaging.streams import declare
from tests.services.ingest.harness import (
    HTTP_ENDPOINTS,
    SECRET,
    Endpoint,
    chat_trace,
    exporter,
    ingest_settings,
    make_spans,
    serve_ingest,
    span_ids,
    stored_spans,
    until,
)
from yardstick.api.roles import Role
from yardstick.api.topology import Topology

pytestmark = [pytest.mark.integration, pytest.mark.timeout(90)]


class OwnNats:
    """A nats-server of this test's own, which it stops and starts again on the same store."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.proc = start_nats(self.port, self.root / "store", self.root / "nats.log")

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(10)
            self.proc = None


@pytest.fixture
def own_nats(tmp_path: Path) -> Iterator[OwnNats]:
    server = OwnNats(tmp_path / "nats")
    server.start()
    yield server
    server.stop()


@pytest.fixture
async def own_client(own_nats: OwnNats, topology: Topology) -> AsyncIterator[NatsClient]:
    nc = await nats.connect(own_nats.url, max_reconnect_attempts=-1, reconnect_time_wait=0.05)
    await declare(nc.jetstream(), topology)
    yield nc
    await nc.close()


async def test_nats_down_is_503_with_retry_after_and_the_exporter_retry_delivers_once(
    own_nats: OwnNats, own_client: NatsClient, database_url: str, topology: Topology
) -> None:
    key = create_key_sync(database_url, SECRET, "shop", Role.INGEST)
    settings = ingest_settings(database_url, own_nats.url, topology, nats_reconnect_wait_s=0.05)
    spans = make_spans(lambda provider: chat_trace(provider, turns=3))
    with serve_ingest(settings) as ingest:
        own_nats.stop()
        await until(lambda: not ingest.health()["nats"]["connected"], what="ingest sees NATS gone")
        async with httpx.AsyncClient(timeout=10) as http:
            direct = await http.post(
                ingest.traces_url,
                content=encode_spans(spans).SerializeToString(),
                headers={"Authorization": f"Bearer {key}", "Content-Type": "application/x-protobuf"},
            )
        assert direct.status_code == 503
        assert direct.headers["Retry-After"] == "1"
        assert "NATS" in direct.json()["detail"]

        export = asyncio.create_task(asyncio.to_thread(exporter(ingest, key, timeout=30).export, spans))
        await until(lambda: ingest.health()["answers"].get("503", 0) >= 2, what="the exporter got a 503")
        assert not export.done()  # still retrying
        own_nats.start()
        assert await export is SpanExportResult.SUCCESS
        assert ingest.health()["ok"] is True

    await until(lambda: own_client.is_connected, what="the test's client is back")
    stored = await stored_spans(own_client, topology)
    assert sorted(span.span_id for span in stored) == span_ids(spans)  # none lost, none doubled


@pytest.mark.parametrize("endpoint", HTTP_ENDPOINTS, ids=str)
async def test_a_flood_past_the_in_flight_bound_is_429_with_retry_after_and_the_resend_is_stored_once(
    database_url: str, nats_url: str, topology: Topology, nats_client: NatsClient, endpoint: Endpoint
) -> None:
    key = create_key_sync(database_url, SECRET, "shop", Role.INGEST)
    settings = ingest_settings(database_url, nats_url, topology, ingest_max_inflight_requests=1)
    held_body, flood_body = endpoint.body(), endpoint.body()
    headers = endpoint.headers(key)
    release = asyncio.Event()

    async def slow_body() -> AsyncIterator[bytes]:
        yield held_body[:10]
        await release.wait()  # the first request stays in flight until the flood was answered
        yield held_body[10:]

    with serve_ingest(settings) as ingest:
        async with httpx.AsyncClient(timeout=10) as http:
            url = endpoint.url(ingest)
            held = asyncio.create_task(http.post(url, content=slow_body(), headers=headers))
            await until(lambda: ingest.health()["in_flight"]["requests"] == 1, what="first request held")
            flood = await asyncio.gather(
                *(http.post(url, content=flood_body, headers=headers) for _ in range(5))
            )
            # the refused requests hold nothing: only the held one's place (no length: the body limit)
            in_flight = await asyncio.to_thread(lambda: ingest.health()["in_flight"])
            release.set()
            assert (await held).status_code == 200
            resent = [await http.post(url, content=flood_body, headers=headers) for _ in range(2)]
        assert [answer.status_code for answer in flood] == [429] * 5
        assert all(answer.headers["Retry-After"] == "1" for answer in flood)
        assert all(answer.headers["content-type"] == "application/problem+json" for answer in flood)
        assert "busy" in flood[0].json()["detail"]
        assert in_flight == {"requests": 1, "bytes": settings.max_body_bytes}
        assert [answer.status_code for answer in resent] == [200, 200]  # the exporter's retry, then a resend
        health = ingest.health()
        assert health["in_flight"] == {"requests": 0, "bytes": 0}
        assert health["duplicates"] == 1
    stored = await stored_spans(nats_client, topology)
    assert len(stored) == len({span.span_id for span in stored}) == 6  # both requests' three, once each
