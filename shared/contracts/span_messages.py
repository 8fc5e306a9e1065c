"""The ``traffic.spans`` stream: OpenTelemetry spans accepted by the ingest service.

One :class:`SpanBatch` holds the spans of one OTLP export request (several batches when the request
is larger than a NATS message), grouped as OTLP groups them: by resource and instrumentation scope.
Identifiers are lower-case hex, times are Unix nanoseconds, attribute values are JSON values
(OTLP ``bytesValue`` becomes base64 text). Readers take it from here: nothing is decoded twice.

OTLP *log records* (the GenAI events an instrumentation sends as logs, ``POST /v1/logs``) travel in
the same stream, so they reach the trace they belong to by the same path as its spans: each is a
zero-length span whose parent is the span it was emitted in, named after the event, with the
attribute :data:`LOG_RECORD_ATTRIBUTE` ``true`` and the record as its only event (the body's fields
among the event's attributes). Its span id is a digest of the record (a resent record is the same
span); :func:`shared.traces.trace_record` folds it back into its span.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, Field, JsonValue, TypeAdapter

SCHEMA_VERSION = 1

Attributes = dict[str, JsonValue]
LOG_RECORD_ATTRIBUTE = "yardstick.log_record"
"""Marks a span that carries one OTLP log record (see the module's docstring)."""
LOG_BODY_ATTRIBUTE = "body"
"""The event attribute holding a log record's body when the body is not a map."""


class SpanKind(StrEnum):
    UNSPECIFIED = "unspecified"
    INTERNAL = "internal"
    SERVER = "server"
    CLIENT = "client"
    PRODUCER = "producer"
    CONSUMER = "consumer"


class StatusCode(StrEnum):
    UNSET = "unset"
    OK = "ok"
    ERROR = "error"


class SpanStatus(BaseModel, frozen=True):
    code: StatusCode = Field(default=StatusCode.UNSET, description="OTLP status code")
    message: str = Field(default="", description="Developer-facing description, set with ERROR")


class SpanEvent(BaseModel, frozen=True):
    name: str = Field(description="Event name, e.g. 'exception' or 'gen_ai.user.message'")
    time_unix_nano: int = Field(ge=0, description="When it happened")
    attributes: Attributes = Field(default_factory=dict, description="The event's attributes")


class SpanLink(BaseModel, frozen=True):
    trace_id: str = Field(description="Linked trace, 32 hex digits")
    span_id: str = Field(description="Linked span, 16 hex digits")


class Span(BaseModel, frozen=True):
    """One span, as the instrumented application reported it."""

    trace_id: str = Field(pattern=r"^[0-9a-f]{32}$", description="32 lower-case hex digits")
    span_id: str = Field(pattern=r"^[0-9a-f]{16}$", description="16 lower-case hex digits")
    parent_span_id: str | None = Field(default=None, description="None for a root span")
    name: str = Field(description="Span name, e.g. 'chat gpt-4o' or 'execute_tool get_menu'")
    kind: SpanKind = Field(default=SpanKind.UNSPECIFIED)
    start_unix_nano: int = Field(ge=0)
    end_unix_nano: int = Field(ge=0)
    status: SpanStatus = Field(default_factory=SpanStatus)
    attributes: Attributes = Field(default_factory=dict)
    events: list[SpanEvent] = Field(default_factory=list)
    links: list[SpanLink] = Field(default_factory=list)


class ResourceSpans(BaseModel, frozen=True):
    """The spans of one resource (one application process) and one instrumentation scope."""

    resource: Attributes = Field(
        default_factory=dict, description="Resource attributes: service.name, service.version, …"
    )
    scope_name: str = Field(default="", description="Instrumentation scope, e.g. 'openinference…'")
    scope_version: str = Field(default="")
    spans: list[Span] = Field(default_factory=list)


class SpanBatch(BaseModel):
    """Spans of one export request (or part of one), published to ``traffic.spans``.

    ``Nats-Msg-Id`` is :meth:`msg_id`, a digest of the project and the spans, so an exporter that
    retries the same request is deduplicated by JetStream."""

    schema_version: int = SCHEMA_VERSION
    project_id: str = Field(description="Project of the API key that sent the spans")
    received_at: datetime = Field(description="When the ingest service accepted the request (UTC)")
    groups: list[ResourceSpans] = Field(description="The spans, by resource and scope")

    def spans(self) -> Iterator[tuple[ResourceSpans, Span]]:
        """Every span with its resource group."""
        for group in self.groups:
            for span in group.spans:
                yield group, span

    @property
    def span_count(self) -> int:
        return sum(len(group.spans) for group in self.groups)

    def msg_id(self) -> str:
        """``Nats-Msg-Id``: the same project and spans give the same id, whenever they arrive."""
        digest = hashlib.sha256(self.project_id.encode())
        digest.update(b"\x00")
        digest.update(_GROUPS.dump_json(self.groups))
        return f"spans:{digest.hexdigest()}"


_GROUPS = TypeAdapter(list[ResourceSpans])
