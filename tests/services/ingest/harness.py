"""The ingest service served over HTTP (uvicorn in a thread), spans made by the real OpenTelemetry
SDK, and reading back what landed in the ``traffic.spans`` stream."""

from __future__ import annotations

import asyncio
import base64
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import httpx
from fastapi import FastAPI
from nats.aio.client import Client as NatsClient
from nats.js.errors import NotFoundError
from opentelemetry._logs import LogRecord
from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.exporter.otlp.proto.http import Compression
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk._logs import LoggerProvider, ReadableLogRecord
from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from services.ingest.export_preparation import Signal
from services.ingest.http_app import create_app
from services.ingest.receiver import LANGFUSE_OTEL_PATH, OTLP_LOGS_PATH, OTLP_TRACES_PATH
from services.ingest.settings import IngestSettings
from shared.contracts.span_messages import Span, SpanBatch
from tests.services.served_app import served
from yardstick.api.topology import Topology

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


def genai_events(tracer_provider: TracerProvider, logger_provider: LoggerProvider, count: int = 3) -> None:
    """``count`` GenAI events (``gen_ai.user.message``) emitted inside one ``chat`` span."""
    with tracer_provider.get_tracer("test").start_as_current_span("chat"):
        for n in range(count):
            logger_provider.get_logger("genai").emit(
                LogRecord(event_name="gen_ai.user.message", body={"content": f"message {n}"})
            )


@dataclass(frozen=True)
class Endpoint:
    """An OTLP/HTTP export path as its clients post to it: the request it takes and how they send
    the key (OTLP exporters: Bearer; the Langfuse SDKs: Basic, the key as password)."""

    path: str
    signal: Signal
    basic_auth: bool = False

    def __str__(self) -> str:
        return self.path

    def url(self, ingest: Ingest) -> str:
        return f"{ingest.url}{self.path}"

    def headers(self, key: str | None) -> dict[str, str]:
        """Protobuf, with ``key`` as this endpoint's clients send it (none: no Authorization)."""
        headers = {"Content-Type": "application/x-protobuf"}
        if key is not None and self.basic_auth:
            headers["Authorization"] = "Basic " + base64.b64encode(f"pk-lf-shop:{key}".encode()).decode()
        elif key is not None:
            headers["Authorization"] = f"Bearer {key}"
        return headers

    @property
    def request_name(self) -> str:
        return "ExportTraceServiceRequest" if self.signal is Signal.TRACES else "ExportLogsServiceRequest"

    def body(self) -> bytes:
        """A protobuf export request of three spans, or of three GenAI events (each stored as a span):
        new ids each call."""
        if self.signal is Signal.TRACES:
            return bytes(encode_spans(make_spans(chat_trace)).SerializeToString())
        _, logs = make_spans_and_logs(genai_events)
        return bytes(encode_logs(logs).SerializeToString())

    def misshapen_json(self) -> bytes:
        """Valid JSON that is not this endpoint's request: a list where an object belongs."""
        if self.signal is Signal.TRACES:
            return b'{"resourceSpans": [{"scopeSpans": 3}]}'
        return b'{"resourceLogs": [{"scopeLogs": 3}]}'

    def non_hex_id_json(self) -> bytes:
        """This endpoint's JSON request with a trace id that is not hex."""
        if self.signal is Signal.TRACES:
            return b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "zz"}]}]}]}'
        return b'{"resourceLogs": [{"scopeLogs": [{"logRecords": [{"traceId": "zz"}]}]}]}'


HTTP_ENDPOINTS = [
    Endpoint(OTLP_TRACES_PATH, Signal.TRACES),
    Endpoint(OTLP_LOGS_PATH, Signal.LOGS),
    Endpoint(LANGFUSE_OTEL_PATH + OTLP_TRACES_PATH, Signal.TRACES, basic_auth=True),
]
"""The export paths a client posts to (the Langfuse logs path is /v1/logs's twin, on the same code)."""


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
