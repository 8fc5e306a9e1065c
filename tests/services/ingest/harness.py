"""The ingest service served over HTTP (uvicorn in a thread), spans made by the real OpenTelemetry
SDK, and reading back what landed in the ``traffic.spans`` stream."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import httpx
from fastapi import FastAPI
from nats.aio.client import Client as NatsClient
from nats.js.errors import NotFoundError
from opentelemetry.exporter.otlp.proto.http import Compression
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk._logs import LoggerProvider, ReadableLogRecord
from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from services.ingest.http_app import create_app
from services.ingest.settings import IngestSettings
from shared.contracts.span_messages import Span, SpanBatch
from shared.contracts.topology import Topology
from tests.services.served_app import served

SECRET = "test-secret-not-for-production"


@dataclass(frozen=True)
class Ingest:
    url: str
    app: FastAPI

    @property
    def traces_url(self) -> str:
        return f"{self.url}/v1/traces"

    @property
    def logs_url(self) -> str:
        return f"{self.url}/v1/logs"

    @property
    def grpc_address(self) -> str:
        """``127.0.0.1:PORT`` of the OTLP/gRPC receiver (its port from /healthz)."""
        return f"127.0.0.1:{self.health()['grpc_port']}"

    def health(self) -> dict[str, Any]:
        body: dict[str, Any] = httpx.get(f"{self.url}/healthz", timeout=5).json()
        return body


def ingest_settings(database_url: str, nats_url: str, topology: Topology, **extra: Any) -> IngestSettings:
    """``model_validate``: nothing read from the environment or .env."""
    return IngestSettings.model_validate(
        {
            "database_url": database_url,
            "nats_url": nats_url,
            "nats_namespace": topology.namespace,
            "YARDSTICK_API_KEY_SECRET": SECRET,
            "ingest_grpc_port": 0,  # a free port: tests run side by side
            **extra,
        }
    )


@contextmanager
def serve_ingest(settings: IngestSettings, port: int = 0) -> Iterator[Ingest]:
    """``port`` 0: a free one."""
    app = create_app(settings)
    with served(app, "the ingest service", port, access_log=False) as url:
        yield Ingest(url, app)


def make_spans(
    build: Callable[[TracerProvider], None], service: str = "shop-assistant"
) -> list[ReadableSpan]:
    """The spans ``build`` makes with a real SDK tracer provider, as an exporter would get them."""
    memory = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    provider.add_span_processor(SimpleSpanProcessor(memory))
    build(provider)
    provider.shutdown()
    return list(memory.get_finished_spans())


def make_spans_and_logs(
    build: Callable[[TracerProvider, LoggerProvider], None], service: str = "shop-assistant"
) -> tuple[list[ReadableSpan], list[ReadableLogRecord]]:
    """The spans and log records ``build`` makes with real SDK providers, as exporters would get them."""
    resource = Resource.create({"service.name": service})
    spans, logs = InMemorySpanExporter(), InMemoryLogRecordExporter()  # type: ignore[no-untyped-call]
    tracer_provider = TracerProvider(resource=resource)
    tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
    logger_provider = LoggerProvider(resource=resource)
    logger_provider.add_log_record_processor(SimpleLogRecordProcessor(logs))
    build(tracer_provider, logger_provider)
    tracer_provider.shutdown()
    logger_provider.shutdown()
    return list(spans.get_finished_spans()), list(logs.get_finished_logs())


def chat_trace(provider: TracerProvider, turns: int = 1) -> None:
    """A small agent trace: ``invoke_agent`` over one ``chat`` and one ``execute_tool`` per turn."""
    tracer = provider.get_tracer("test.agent")
    with tracer.start_as_current_span("invoke_agent shop") as root:
        root.set_attribute("gen_ai.operation.name", "invoke_agent")
        for turn in range(turns):
            with tracer.start_as_current_span("chat gpt-test") as chat:
                chat.set_attribute("gen_ai.operation.name", "chat")
                chat.set_attribute("gen_ai.request.model", "gpt-test")
                chat.set_attribute("gen_ai.usage.input_tokens", 10 + turn)
            with tracer.start_as_current_span("execute_tool lookup") as tool:
                tool.set_attribute("gen_ai.operation.name", "execute_tool")
                tool.set_attribute("gen_ai.tool.name", "lookup")


def exporter(ingest: Ingest, key: str, *, gzip: bool = False, timeout: float = 10.0) -> OTLPSpanExporter:
    return OTLPSpanExporter(
        endpoint=ingest.traces_url,
        headers={"Authorization": f"Bearer {key}"},
        timeout=timeout,
        compression=Compression.Gzip if gzip else Compression.NoCompression,
    )


async def stored_batches(nc: NatsClient, topology: Topology) -> list[SpanBatch]:
    """Every message in the test's ``traffic.spans`` stream."""
    js = nc.jetstream()
    info = await js.stream_info(topology.traffic_spans_stream)
    out: list[SpanBatch] = []
    if info.state.messages == 0:
        return out
    for seq in range(info.state.first_seq, info.state.last_seq + 1):
        try:
            raw = await js.get_msg(topology.traffic_spans_stream, seq)
        except NotFoundError:
            continue
        out.append(SpanBatch.model_validate_json(raw.data or b""))
    return out


async def stored_spans(nc: NatsClient, topology: Topology) -> list[Span]:
    return [span for batch in await stored_batches(nc, topology) for _, span in batch.spans()]


def span_ids(spans: Sequence[ReadableSpan]) -> list[str]:
    return sorted(format(span.context.span_id, "016x") for span in spans if span.context is not None)


async def until(check: Callable[[], bool], timeout_s: float = 30.0, what: str = "") -> None:
    """Poll ``check`` every 20 ms until it holds (an event observed through an API)."""
    deadline = time.monotonic() + timeout_s
    while not await asyncio.to_thread(check):
        if time.monotonic() > deadline:
            raise TimeoutError(f"never happened: {what}")
        await asyncio.sleep(0.02)
