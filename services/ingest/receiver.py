"""The OTLP/HTTP receiver: ``POST /v1/traces`` and ``POST /v1/logs`` (GenAI events), and the paths
the Langfuse SDKs post to (``/api/public/otel/v1/traces``: a Langfuse user points the SDK's base URL
at the ingest, with an ingest key as secret key).

In order, each step refusing with its own status (``errors``): a declared body larger than the
limit (413), the in-flight bound (429), the API key (401/403, 503 when it cannot be checked), NATS
connected (503), the media type and encoding (415), the body read within the limit (413) and
inflated within its own (413), decoded (400), too many spans (413); then spans that break a rule
are left out (partial success) and the rest published; 200 once JetStream has confirmed them all.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

from fastapi import APIRouter, Request, Response

from services.ingest.admission import Admission
from services.ingest.errors import BodyTooLarge, IngestError, Overloaded
from services.ingest.export_preparation import ExportBody, PreparedExport, Signal, prepare_export
from services.ingest.key_check import Caller, KeyChecker
from services.ingest.otlp_decoding import (
    JSON,
    PROTOBUF,
    Encoding,
    check_content_encoding,
    encoding_of,
    inflate,
)
from services.ingest.settings import IngestSettings
from services.ingest.span_publisher import SpanPublisher
from shared.metrics import EXPORTS_REFUSED, SPANS_INGESTED

log = logging.getLogger(__name__)

OTLP_TRACES_PATH = "/v1/traces"
OTLP_LOGS_PATH = "/v1/logs"
LANGFUSE_OTEL_PATH = "/api/public/otel"
"""The Langfuse SDKs export OTLP/HTTP to ``{base_url}/api/public/otel/v1/traces``."""
EXPORT_PATHS: dict[str, Signal] = {
    OTLP_TRACES_PATH: Signal.TRACES,
    OTLP_LOGS_PATH: Signal.LOGS,
    LANGFUSE_OTEL_PATH + OTLP_TRACES_PATH: Signal.TRACES,
    LANGFUSE_OTEL_PATH + OTLP_LOGS_PATH: Signal.LOGS,
}


class TraceReceiver:
    """What the route calls; counts what it did for /healthz."""

    def __init__(
        self, settings: IngestSettings, keys: KeyChecker, publisher: SpanPublisher, admission: Admission
    ) -> None:
        self._settings = settings
        self.keys = keys
        self.publisher = publisher
        self.admission = admission
        self.spans_accepted = 0
        self.spans_rejected = 0
        self.answers: Counter[int] = Counter()

    async def handle(self, request: Request, signal: Signal = Signal.TRACES) -> Response:
        declared = _content_length(request)
        if declared is not None and declared > self._settings.max_body_bytes:
            raise self._too_large()
        try:
            hold = self.admission.hold(self._settings.max_body_bytes if declared is None else declared)
        except Overloaded:
            await self._discard(request)  # answered on a connection the client can still read
            raise
        with hold:
            caller = await self.keys.caller(request.headers.get("authorization"))
            self.publisher.ensure_connected()
            encoding = encoding_of(request.headers.get("content-type"))
            gzip = check_content_encoding(request.headers.get("content-encoding"))
            body = await self._read(request)
            if gzip:
                body = await asyncio.to_thread(inflate, body, self._settings.ingest_max_decompressed_bytes)
                hold.grow(len(body))
            prepared = await self.accept(caller, body, encoding, signal)
        return Response(
            prepared.response(encoding),
            status_code=200,
            media_type=PROTOBUF if encoding is Encoding.PROTOBUF else JSON,
        )

    async def accept(self, caller: Caller, body: bytes, encoding: Encoding, signal: Signal) -> PreparedExport:
        """An (inflated) body from ``caller`` checked, converted and stored: 200's work, for HTTP and gRPC."""
        export = ExportBody(
            body=body,
            encoding=encoding,
            project_id=caller.project_id,
            received_at=datetime.now(UTC),
            signal=signal,
        )
        prepared = await asyncio.to_thread(
            prepare_export, export, self._settings.span_limits, self.publisher.max_message_bytes
        )
        if prepared.batches:
            await self.publisher.publish(prepared.batches)
        self._count(prepared, caller.key_id)
        return prepared

    def refused(self, error: IngestError) -> None:
        self.answers[error.status_code] += 1
        EXPORTS_REFUSED.labels(str(error.status_code)).inc()

    async def _read(self, request: Request) -> bytes:
        chunks: list[bytes] = []
        size = 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > self._settings.max_body_bytes:
                raise self._too_large()
            chunks.append(chunk)
        return b"".join(chunks)

    async def _discard(self, request: Request) -> None:
        """Read and drop the body (at most the limit): closing a socket with unread data resets
        the connection, and the client may lose the answer with it."""
        size = 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > self._settings.max_body_bytes:
                return

    def _too_large(self) -> BodyTooLarge:
        return BodyTooLarge(
            f"request body larger than {self._settings.max_body_bytes} bytes: send smaller batches "
            "(OTEL_BSP_MAX_EXPORT_BATCH_SIZE) or compress them (OTEL_EXPORTER_OTLP_COMPRESSION=gzip)"
        )

    def _count(self, prepared: PreparedExport, key_id: str) -> None:
        self.answers[200] += 1
        self.spans_accepted += prepared.accepted
        self.spans_rejected += len(prepared.rejections)
        SPANS_INGESTED.labels("accepted").inc(prepared.accepted)
        SPANS_INGESTED.labels("rejected").inc(len(prepared.rejections))
        if prepared.rejections:
            log.info(
                "spans rejected",
                extra={
                    "key_id": key_id,
                    "accepted": prepared.accepted,
                    "rejected": len(prepared.rejections),
                    "reason": prepared.error_message()[:500],
                },
            )


def _content_length(request: Request) -> int | None:
    try:
        return int(request.headers["content-length"])
    except (KeyError, ValueError):
        return None


def receiver_router(receiver: TraceReceiver) -> APIRouter:
    router = APIRouter(tags=["otlp"])
    for path, signal in EXPORT_PATHS.items():
        router.add_api_route(
            path,
            _endpoint(receiver, signal),
            methods=["POST"],
            summary=_SUMMARIES[path],
            response_class=Response,
            responses=_RESPONSES[signal],
        )
    return router


_SUMMARIES = {
    OTLP_TRACES_PATH: "Receive OpenTelemetry traces (OTLP/HTTP, protobuf or JSON, gzip)",
    OTLP_LOGS_PATH: "Receive GenAI events sent as OpenTelemetry logs, joined to their spans",
    LANGFUSE_OTEL_PATH
    + OTLP_TRACES_PATH: "Receive traces from a Langfuse SDK (Basic auth, secret key = key)",
    LANGFUSE_OTEL_PATH + OTLP_LOGS_PATH: "The same as /v1/logs, under the Langfuse OTLP endpoint",
}
_REFUSALS: dict[int | str, dict[str, str]] = {
    400: {"description": "Not an OTLP export request"},
    401: {"description": "No valid API key"},
    403: {"description": "The key's role does not grant ingest"},
    413: {"description": "Body or item count over the limit"},
    415: {"description": "Content-Type or Content-Encoding not supported"},
    429: {"description": "Busy: retry after Retry-After"},
    503: {"description": "NATS or PostgreSQL unavailable: retry after Retry-After"},
}
_RESPONSES: dict[Signal, dict[int | str, dict[str, str]]] = {
    Signal.TRACES: {
        200: {"description": "ExportTraceServiceResponse (partial_success lists rejected spans)"},
        **_REFUSALS,
    },
    Signal.LOGS: {
        200: {"description": "ExportLogsServiceResponse (partial_success lists rejected log records)"},
        **_REFUSALS,
    },
}


def _endpoint(receiver: TraceReceiver, signal: Signal) -> Callable[[Request], Awaitable[Response]]:
    async def export(request: Request) -> Response:
        return await receiver.handle(request, signal)

    return export
