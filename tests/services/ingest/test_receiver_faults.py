"""The receiver when NATS goes away (503 + Retry-After, then the exporter's own retry delivers,
none lost, none doubled) and when it is flooded (429 + Retry-After, nothing queued)."""

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
from shared.contracts.roles import Role
from shared.contracts.topology import Topology
from shared.db.api_keys import create_key_sync
from shared.messaging.streams import declare
from tests.services.ingest.harness import (
    SECRET,
    chat_trace,
    exporter,
    ingest_settings,
    make_spans,
    serve_ingest,
    span_ids,
    stored_spans,
    until,
)

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


async def test_a_flood_past_the_in_flight_bound_is_429_with_retry_after(
    database_url: str, nats_url: str, topology: Topology, nats_client: NatsClient
) -> None:
    key = create_key_sync(database_url, SECRET, "shop", Role.INGEST)
    settings = ingest_settings(database_url, nats_url, topology, ingest_max_inflight_requests=1)
    body = encode_spans(make_spans(chat_trace)).SerializeToString()
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/x-protobuf"}
    release = asyncio.Event()

    async def slow_body() -> AsyncIterator[bytes]:
        yield body[:10]
        await release.wait()  # the first request stays in flight until the second was answered
        yield body[10:]

    with serve_ingest(settings) as ingest:
        async with httpx.AsyncClient(timeout=10) as http:
            first = asyncio.create_task(http.post(ingest.traces_url, content=slow_body(), headers=headers))
            await until(lambda: ingest.health()["in_flight"]["requests"] == 1, what="first request held")
            second = await http.post(ingest.traces_url, content=body, headers=headers)
            release.set()
            assert (await first).status_code == 200
        assert second.status_code == 429
        assert second.headers["Retry-After"] == "1"
        assert "busy" in second.json()["detail"]
        assert ingest.health()["in_flight"] == {"requests": 0, "bytes": 0}
    assert len(await stored_spans(nats_client, topology)) == 3
