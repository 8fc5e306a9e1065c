"""What the receiver refuses, each mapped once to its HTTP status (``http_app`` renders them as
problem details; 429 and 503 carry ``Retry-After``, on which OpenTelemetry exporters retry)."""

from __future__ import annotations


class IngestError(Exception):
    """A refused export request: ``status`` and a message saying what was wrong and what to do."""

    status = 400
    retry: bool = False

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class Unauthorized(IngestError):
    status = 401


class Forbidden(IngestError):
    status = 403


class BodyTooLarge(IngestError):
    status = 413


class TooManySpans(IngestError):
    status = 413


class UnsupportedMediaType(IngestError):
    status = 415


class MalformedExport(IngestError):
    """The body is not an OTLP ExportTraceServiceRequest in the encoding it claims."""

    status = 400


class Overloaded(IngestError):
    status = 429
    retry = True


class Unavailable(IngestError):
    """NATS (or PostgreSQL, for a key not seen lately) is not answering: nothing was stored."""

    status = 503
    retry = True
