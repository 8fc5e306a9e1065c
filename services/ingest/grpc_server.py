"""OTLP over gRPC (``TraceService/Export`` and ``LogsService/Export``, port 4317 by default) beside
OTLP/HTTP, on the same event loop, with the same keys, limits and storage as the HTTP receiver.

- The key: ``authorization`` metadata, ``Bearer <key>`` (``OTEL_EXPORTER_OTLP_HEADERS=authorization=
  Bearer%20<key>``) or Basic, as over HTTP.
- Limits: a message larger than ``max_body_bytes`` is refused by gRPC itself (RESOURCE_EXHAUSTED
  from the client's side; gRPC inflates a gzip message before the check); the in-flight bounds of
  :class:`~services.ingest.admission.Admission`, shared with HTTP: a call takes its place *before*
  its message is read (the method is served as client-streaming, which is the same on the wire as
  the exporters' unary call), so a flood is refused at once, with the retry delay, and at most
  ``ingest_max_inflight_requests`` messages are in memory. gRPC's own limit on calls at once (which
  refuses without a retry delay: OTLP clients then drop the data) is only a backstop, at
  ``BACKSTOP_FACTOR`` times that bound and never under ``BACKSTOP_MIN_CALLS``, so a burst of calls
  meets this receiver's own refusal (with its delay), not gRPC's.
- The request is kept as bytes (no deserializer) and decoded by the same code as an HTTP protobuf
  body, in a worker thread.
- Refusals map onto the status codes OTLP exporters understand: a refusal worth retrying (429, 503)
  is ``RESOURCE_EXHAUSTED`` / ``UNAVAILABLE`` with ``google.rpc.RetryInfo`` (the exporter waits that
  long); a permanent one is ``INVALID_ARGUMENT`` (400, 413), ``UNAUTHENTICATED`` (401) or
  ``PERMISSION_DENIED`` (403), which exporters do not retry. The detail is the same sentence as
  the HTTP answer's.
- The port is bound without ``SO_REUSEPORT``: a second process on the same port fails to start
  instead of silently sharing it.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable

import grpc
from google.protobuf.duration_pb2 import Duration
from google.rpc.error_details_pb2 import RetryInfo

from services.ingest.errors import IngestError
from services.ingest.export_preparation import Signal
from services.ingest.otlp_decoding import Encoding
from services.ingest.receiver import TraceReceiver
from services.ingest.settings import IngestSettings

log = logging.getLogger(__name__)

TRACE_SERVICE = "opentelemetry.proto.collector.trace.v1.TraceService"
LOGS_SERVICE = "opentelemetry.proto.collector.logs.v1.LogsService"
RETRY_INFO_KEY = "google.rpc.retryinfo-bin"
BACKSTOP_FACTOR = 4
"""gRPC's own limit on calls at once, in multiples of the in-flight bound (see the module docstring)."""
BACKSTOP_MIN_CALLS = 64
"""The least that limit is: a refused call holds no message, so a small bound (a test's 1, a small
deployment's few) must not let gRPC refuse a burst without the retry delay."""

_CODES = {
    400: grpc.StatusCode.INVALID_ARGUMENT,
    401: grpc.StatusCode.UNAUTHENTICATED,
    403: grpc.StatusCode.PERMISSION_DENIED,
    413: grpc.StatusCode.INVALID_ARGUMENT,  # RESOURCE_EXHAUSTED would be retried: the same body again
    415: grpc.StatusCode.INVALID_ARGUMENT,
    429: grpc.StatusCode.RESOURCE_EXHAUSTED,
    503: grpc.StatusCode.UNAVAILABLE,
}

Export = Callable[[AsyncIterator[bytes], grpc.aio.ServicerContext[bytes, bytes]], Awaitable[bytes]]


def grpc_status(error: IngestError) -> grpc.StatusCode:
    return _CODES.get(error.status_code, grpc.StatusCode.INVALID_ARGUMENT)


class GrpcReceiver:
    """The gRPC server; :meth:`start` binds ``host:port`` (port 0: a free one, see :attr:`port`)."""

    def __init__(self, receiver: TraceReceiver, settings: IngestSettings) -> None:
        self._receiver = receiver
        self._address = f"{settings.http_host}:{settings.ingest_grpc_port}"
        self._retry_after_s = settings.ingest_retry_after_s
        self._no_message = (
            "the call carried no export request: send one message, of at most "
            f"{settings.max_body_bytes} bytes (gRPC refuses a larger one itself)"
        )
        self._server = grpc.aio.server(
            options=[
                ("grpc.max_receive_message_length", settings.max_body_bytes),
                ("grpc.so_reuseport", 0),
            ],
            maximum_concurrent_rpcs=max(
                BACKSTOP_MIN_CALLS, BACKSTOP_FACTOR * receiver.admission.max_requests
            ),
        )
        self._server.add_generic_rpc_handlers(
            [
                grpc.method_handlers_generic_handler(
                    TRACE_SERVICE,
                    {"Export": grpc.stream_unary_rpc_method_handler(self._export(Signal.TRACES))},
                ),
                grpc.method_handlers_generic_handler(
                    LOGS_SERVICE, {"Export": grpc.stream_unary_rpc_method_handler(self._export(Signal.LOGS))}
                ),
            ]
        )
        self.port = 0

    async def start(self) -> None:
        try:
            self.port = self._server.add_insecure_port(self._address)
        except RuntimeError as exc:  # grpc says only "Failed to bind"
            raise RuntimeError(
                f"the OTLP/gRPC port {self._address} cannot be bound (in use?): set INGEST_GRPC_PORT "
                "to a free port, or 0 for any"
            ) from exc
        await self._server.start()
        log.info("OTLP/gRPC receiver listening", extra={"address": self._address, "port": self.port})

    async def stop(self, grace_s: float = 5.0) -> None:
        await self._server.stop(grace_s)

    def _export(self, signal: Signal) -> Export:
        async def export(
            requests: AsyncIterator[bytes], context: grpc.aio.ServicerContext[bytes, bytes]
        ) -> bytes:
            try:
                return await self._accept(signal, requests, context)
            except IngestError as exc:
                self._receiver.refused(exc)
                if exc.retry:
                    delay = RetryInfo(retry_delay=Duration(seconds=self._retry_after_s))
                    context.set_trailing_metadata(((RETRY_INFO_KEY, delay.SerializeToString()),))
                await context.abort(grpc_status(exc), exc.message)
                raise  # abort raises; this line is never reached

        return export

    async def _accept(
        self, signal: Signal, messages: AsyncIterator[bytes], context: grpc.aio.ServicerContext[bytes, bytes]
    ) -> bytes:
        with self._receiver.admission.hold(0) as hold:  # a place first: a refusal reads nothing
            body = await anext(aiter(messages), None)  # no deserializer: the message as received
            if body is None:  # not counted as a refusal: gRPC may have refused a message too large
                await context.abort(grpc.StatusCode.INVALID_ARGUMENT, self._no_message)
            hold.grow(len(body))
            metadata = {key: value for key, value in context.invocation_metadata() or ()}
            authorization = metadata.get("authorization")
            caller = await self._receiver.keys.caller(
                authorization if isinstance(authorization, str) else None
            )
            self._receiver.publisher.ensure_connected()
            prepared = await self._receiver.accept(caller, body, Encoding.PROTOBUF, signal)
        return bytes(prepared.answer().SerializeToString())
