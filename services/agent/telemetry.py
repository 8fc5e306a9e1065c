"""Where the chat turns' traces go: an OpenTelemetry SDK tracer provider with a batching OTLP/HTTP
exporter (protobuf) to ``OTEL_EXPORTER_OTLP_ENDPOINT`` + ``/v1/traces``, e.g. Yardstick's ingest
service with an ingest key in ``OTEL_EXPORTER_OTLP_HEADERS``.

The :class:`~opentelemetry.sdk.trace.export.BatchSpanProcessor` exports off the event loop, in its
own thread; the exporter retries 429/502/503/504 (honouring ``Retry-After``), which is how the ingest
service says it is overloaded or cannot reach NATS, for up to ``EXPORT_TIMEOUT_S`` per batch. A turn
never waits for its export. Unlike the ``traffic.agent`` outbox this replaces, nothing is kept on
disk: a batch still refused after that time, or spans beyond the queue's bound while it waits, are
dropped (the SDK logs it). Without an endpoint the
provider has no processor: spans are made and forgotten.
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

log = logging.getLogger(__name__)

TRACES_PATH = "/v1/traces"
INSTRUMENTATION_NAME = "yardstick.drive_thru"
EXPORT_TIMEOUT_S = 60.0  # how long one batch is retried (the ingest answering 503 while NATS is away)
SHUTDOWN_FLUSH_MS = 10_000


def otlp_exporter(settings: AgentSettings) -> OTLPSpanExporter | None:
    """The OTLP/HTTP exporter the settings name; None when no endpoint is set."""
    if not settings.otlp_endpoint:
        return None
    headers = (
        parse_env_headers(settings.otlp_headers.get_secret_value(), liberal=True)
        if (settings.otlp_headers)
        else {}
    )
    return OTLPSpanExporter(
        endpoint=settings.otlp_endpoint.rstrip("/") + TRACES_PATH, headers=headers, timeout=EXPORT_TIMEOUT_S
    )


class AgentTelemetry:
    """The process's tracer provider (resource ``service.name`` = the application's name)."""

    def __init__(self, service_name: str, exporter: SpanExporter | None) -> None:
        self.service_name = service_name
        self._provider = TracerProvider(resource=Resource.create({"service.name": service_name}))
        if exporter is not None:
            self._provider.add_span_processor(BatchSpanProcessor(exporter))
        self.exporting = exporter is not None
        self.tracer: Tracer = self._provider.get_tracer(INSTRUMENTATION_NAME)

    @classmethod
    def from_settings(cls, settings: AgentSettings, exporter: SpanExporter | None = None) -> AgentTelemetry:
        """``exporter`` replaces the one the settings name (tests export to memory)."""
        chosen = exporter or otlp_exporter(settings)
        if chosen is None:
            log.info("OTEL_EXPORTER_OTLP_ENDPOINT is not set: chat turns are not reported as traces")
        return cls(settings.otel_service_name, chosen)

    async def flush(self, timeout_ms: int = SHUTDOWN_FLUSH_MS) -> bool:
        """Export every ended span now (off the event loop); False when it did not finish in time."""
        return await asyncio.to_thread(self._provider.force_flush, timeout_ms)

    async def aclose(self) -> None:
        """Flush what is queued, then stop the exporter thread."""
        await self.flush()
        await asyncio.to_thread(self._provider.shutdown)
