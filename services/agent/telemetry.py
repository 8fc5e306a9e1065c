"""Where the chat turns' traces go: an OpenTelemetry SDK tracer provider with a batching OTLP/HTTP
exporter (protobuf) to ``OTEL_EXPORTER_OTLP_ENDPOINT`` + ``/v1/traces``, e.g. Yardstick's ingest
service with an ingest key in ``OTEL_EXPORTER_OTLP_HEADERS``.

The :class:`~opentelemetry.sdk.trace.export.BatchSpanProcessor` exports off the event loop, in its
own thread; a turn never waits for its export. The exporter retries 429/502/503/504 (honouring
``Retry-After``), which is how the ingest service says it is overloaded or cannot reach NATS, for up
to ``OTLP_EXPORT_TIMEOUT_S`` (10 s, a setting) per batch; a batch still refused then is kept in PostgreSQL
(:mod:`services.agent.span_outbox`) and re-sent once the ingest accepts again, however long the
outage. What can still be lost: the spans in the in-memory queue (not exported yet, at most a few
seconds' worth) when the process is killed (``kill -9``; a normal stop flushes them), spans beyond the
queue's bound (2048) while a batch is being retried, and a batch that could be neither exported nor
written to PostgreSQL (both away). Without an endpoint the provider has no processor: spans are made
and forgotten.
"""

from __future__ import annotations

import asyncio
import logging

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter
from opentelemetry.trace import Tracer
from opentelemetry.util.re import parse_env_headers

from services.agent.settings import AgentSettings
from services.agent.span_outbox import OtlpSender, SpanOutbox

log = logging.getLogger(__name__)

TRACES_PATH = "/v1/traces"
INSTRUMENTATION_NAME = "yardstick.drive_thru"
SHUTDOWN_FLUSH_MS = 10_000


def otlp_outbox(settings: AgentSettings) -> SpanOutbox | None:
    """The OTLP/HTTP exporter the settings name behind the span outbox; None when no endpoint is set."""
    if not settings.otlp_endpoint:
        return None
    headers = (
        parse_env_headers(settings.otlp_headers.get_secret_value(), liberal=True)
        if (settings.otlp_headers)
        else {}
    )
    url = settings.otlp_endpoint.rstrip("/") + TRACES_PATH
    timeout = settings.otlp_export_timeout_s
    return SpanOutbox(
        OTLPSpanExporter(endpoint=url, headers=headers, timeout=timeout),
        settings.database_url,
        OtlpSender(url, headers, timeout),
        retry_max_s=settings.span_outbox_retry_max_s,
    )


class AgentTelemetry:
    """The process's tracer provider (resource ``service.name`` = the application's name)."""

    def __init__(
        self, service_name: str, exporter: SpanExporter | None, outbox: SpanOutbox | None = None
    ) -> None:
        self.service_name = service_name
        self.outbox = outbox
        self._provider = TracerProvider(resource=Resource.create({"service.name": service_name}))
        if exporter is not None:
            self._provider.add_span_processor(BatchSpanProcessor(exporter))
        self.exporting = exporter is not None
        self.tracer: Tracer = self._provider.get_tracer(INSTRUMENTATION_NAME)

    @classmethod
    def from_settings(cls, settings: AgentSettings, exporter: SpanExporter | None = None) -> AgentTelemetry:
        """``exporter`` replaces the one the settings name (tests export to memory)."""
        if exporter is not None:
            return cls(settings.otel_service_name, exporter)
        outbox = otlp_outbox(settings)
        if outbox is None:
            log.info("OTEL_EXPORTER_OTLP_ENDPOINT is not set: chat turns are not reported as traces")
            return cls(settings.otel_service_name, None)
        outbox.start()
        return cls(settings.otel_service_name, outbox.exporter, outbox)

    async def flush(self, timeout_ms: int = SHUTDOWN_FLUSH_MS) -> bool:
        """Export every ended span now (off the event loop); False when it did not finish in time."""
        return await asyncio.to_thread(self._provider.force_flush, timeout_ms)

    async def aclose(self) -> None:
        """Flush what is queued, then stop the exporter thread."""
        await self.flush()
        await asyncio.to_thread(self._provider.shutdown)
        if self.outbox is not None:  # what it holds stays in Postgres for the next start
            await asyncio.to_thread(self.outbox.stop)
