"""An OTLP/HTTP request body into an ``ExportTraceServiceRequest`` (``/v1/traces``) or an
``ExportLogsServiceRequest`` (``/v1/logs``): protobuf or JSON, gzip or not.

- ``Content-Type``: ``application/x-protobuf`` or ``application/json`` (anything else: 415);
- ``Content-Encoding``: ``gzip`` or none (``identity``); the inflated body is bounded, so a small
  gzip bomb is refused (413) without inflating it all;
- OTLP/JSON differs from protobuf's JSON mapping in one point: trace and span ids (of spans, links
  and log records) are hex, not base64. They are converted before parsing; unknown fields are
  ignored, as OTLP asks of receivers.

Pure functions (no I/O); the receiver runs them in a worker thread.
"""

from __future__ import annotations

import base64
import zlib
from collections.abc import Callable
from enum import StrEnum
from typing import Any

import orjson
from google.protobuf import json_format
from google.protobuf.message import DecodeError, Message
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from services.ingest.errors import BodyTooLarge, MalformedExport, UnsupportedMediaType

PROTOBUF = "application/x-protobuf"
JSON = "application/json"
_ID_FIELDS = ("traceId", "spanId", "parentSpanId", "trace_id", "span_id", "parent_span_id")


class Encoding(StrEnum):
    PROTOBUF = "protobuf"
    JSON = "json"


def encoding_of(content_type: str | None) -> Encoding:
    """The body encoding ``Content-Type`` names; 415 for any other."""
    media = (content_type or "").split(";", 1)[0].strip().lower()
    if media == PROTOBUF:
        return Encoding.PROTOBUF
    if media == JSON:
        return Encoding.JSON
    raise UnsupportedMediaType(
        f"Content-Type {media or '(none)'!r} is not OTLP: send {PROTOBUF} or {JSON} "
        "(OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf or http/json)"
    )


def check_content_encoding(content_encoding: str | None) -> bool:
    """Whether the body is gzip-compressed; 415 for an encoding other than gzip or identity."""
    value = (content_encoding or "identity").strip().lower()
    if value in ("", "identity"):
        return False
    if value == "gzip":
        return True
    raise UnsupportedMediaType(
        f"Content-Encoding {value!r} is not supported: send gzip or none "
        "(OTEL_EXPORTER_OTLP_COMPRESSION=gzip)"
    )


def inflate(body: bytes, max_bytes: int) -> bytes:
    """The gzip ``body`` inflated, refused (413) as soon as it passes ``max_bytes``."""
    inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    try:
        out = inflater.decompress(body, max_bytes + 1)
    except zlib.error as exc:
        raise MalformedExport(
            f"the body is not valid gzip ({exc}): compress it with gzip or send it plain"
        ) from exc
    if len(out) > max_bytes or inflater.unconsumed_tail:
        raise BodyTooLarge(
            f"the gzip body inflates to more than {max_bytes} bytes: send smaller batches "
            "(OTEL_BSP_MAX_EXPORT_BATCH_SIZE)"
        )
    if not inflater.eof:
        raise MalformedExport("the gzip body is truncated: send the whole compressed body")
    return out


def decode_request(body: bytes, encoding: Encoding) -> ExportTraceServiceRequest:
    """Parse an (inflated) traces body; 400 naming what is wrong when it is not an export request."""
    request = ExportTraceServiceRequest()
    _parse(body, encoding, request, _hex_ids_to_base64, "trace_service.proto", '{"resourceSpans": [...]}')
    return request


def decode_logs_request(body: bytes, encoding: Encoding) -> ExportLogsServiceRequest:
    """Parse an (inflated) logs body; 400 naming what is wrong when it is not an export request."""
    request = ExportLogsServiceRequest()
    _parse(body, encoding, request, _log_ids_to_base64, "logs_service.proto", '{"resourceLogs": [...]}')
    return request


def _parse(
    body: bytes,
    encoding: Encoding,
    request: Message,
    convert_ids: Callable[[dict[str, Any]], dict[str, Any]],
    proto: str,
    example: str,
) -> None:
    name = type(request).__name__
    if encoding is Encoding.PROTOBUF:
        try:
            request.ParseFromString(body)
        except DecodeError as exc:
            raise MalformedExport(
                f"the body is not a protobuf {name} ({exc}): "
                "send what the OTLP exporter encodes, or use Content-Type application/json for JSON"
            ) from exc
        return
    try:
        document = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise MalformedExport(f"the body is not JSON ({exc}): send an OTLP/JSON {name}") from exc
    if not isinstance(document, dict):
        raise MalformedExport(f"the JSON body must be an object such as {example}: send an OTLP/JSON {name}")
    try:
        json_format.ParseDict(convert_ids(document), request, ignore_unknown_fields=True)
    except json_format.ParseError as exc:
        raise MalformedExport(
            f"the JSON body is not an OTLP {name} ({exc}): send what an OTLP/JSON "
            f"exporter encodes (opentelemetry-proto's {proto})"
        ) from exc


def _hex_ids_to_base64(document: dict[str, Any]) -> dict[str, Any]:
    """OTLP/JSON's hex ids as the base64 that protobuf's JSON mapping expects (in place)."""
    for resource in _items(document, "resourceSpans", "resource_spans"):
        for scope in _items(resource, "scopeSpans", "scope_spans"):
            for span in _items(scope, "spans"):
                _convert_ids(span)
                for link in _items(span, "links"):
                    _convert_ids(link)
    return document


def _log_ids_to_base64(document: dict[str, Any]) -> dict[str, Any]:
    for resource in _items(document, "resourceLogs", "resource_logs"):
        for scope in _items(resource, "scopeLogs", "scope_logs"):
            for record in _items(scope, "logRecords", "log_records"):
                _convert_ids(record)
    return document


def _items(parent: Any, *names: str) -> list[Any]:
    if not isinstance(parent, dict):
        return []
    for name in names:
        value = parent.get(name)
        if isinstance(value, list):
            return value
    return []


def _convert_ids(obj: Any) -> None:
    if not isinstance(obj, dict):
        return
    for field in _ID_FIELDS:
        value = obj.get(field)
        if isinstance(value, str) and value:
            try:
                obj[field] = base64.b64encode(bytes.fromhex(value)).decode()
            except ValueError as exc:
                raise MalformedExport(
                    f"{field} {value[:40]!r} is not hex: send ids as OTLP/JSON does, hex strings "
                    "(32 digits for a trace id, 16 for a span id)"
                ) from exc


__all__ = [
    "JSON",
    "PROTOBUF",
    "Encoding",
    "check_content_encoding",
    "decode_logs_request",
    "decode_request",
    "encoding_of",
    "inflate",
]
