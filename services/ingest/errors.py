"""What the receiver refuses, each mapped once to its HTTP status (problem details, by the handlers
every HTTP service installs; 429 and 503 carry ``Retry-After``, on which OpenTelemetry exporters
retry; the gRPC receiver maps the same statuses to its codes)."""

from __future__ import annotations

from typing import ClassVar

from shared.http.problem_details import ProblemError


class IngestError(ProblemError):
    """A refused export request: ``status_code`` and a message saying what was wrong and what to do;
    ``retry`` when the client should send it again later."""

    retry: ClassVar[bool] = False


class Unauthorized(IngestError):
    status_code = 401


class Forbidden(IngestError):
    status_code = 403


class BodyTooLarge(IngestError):
    status_code = 413


class TooManySpans(IngestError):
    status_code = 413


class UnsupportedMediaType(IngestError):
    status_code = 415


class MalformedExport(IngestError):
    """The body is not an OTLP ExportTraceServiceRequest in the encoding it claims."""

    status_code = 400


class Overloaded(IngestError):
    status_code = 429
    retry = True


class Unavailable(IngestError):
    """NATS (or PostgreSQL, for a key not seen lately) is not answering: nothing was stored."""

    status_code = 503
    retry = True
