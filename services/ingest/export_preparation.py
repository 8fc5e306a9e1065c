"""One export request body (traces or logs) into the messages to publish and the OTLP answer: pure,
no I/O.

decode (protobuf or JSON) → check and convert each span, or each log record into its carrier span
(:mod:`services.ingest.log_conversion`) → cut into messages (the body was
inflated before, when gzip: the receiver holds its inflated size against the in-flight bound).
The receiver runs it in a worker thread, so a large body does not hold up the event loop.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from google.protobuf import json_format
from google.protobuf.message import Message
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsPartialSuccess,
    ExportLogsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTracePartialSuccess,
    ExportTraceServiceResponse,
)
from pydantic import BaseModel, Field

from services.ingest.batching import EncodedBatch, encode_batches
from services.ingest.log_conversion import convert_logs
from services.ingest.otlp_decoding import Encoding, decode_logs_request, decode_request
from services.ingest.span_conversion import Conversion, Rejection, SpanLimits, convert_request

MAX_REASONS = 3


class Signal(StrEnum):
    """What an export request carries: OTLP's ``/v1/traces`` or ``/v1/logs``."""

    TRACES = "traces"
    LOGS = "logs"


class ExportBody(BaseModel, frozen=True):
    """The request as received (inflated)."""

    body: bytes
    encoding: Encoding
    project_id: str
    received_at: datetime
    signal: Signal = Signal.TRACES


class PreparedExport(BaseModel, frozen=True):
    signal: Signal = Signal.TRACES
    batches: list[EncodedBatch] = Field(description="Messages for traffic.spans")
    accepted: int = Field(description="Spans (or log records) in the messages")
    rejections: list[Rejection] = Field(description="Spans (or log records) left out, with why")

    def error_message(self) -> str:
        """OTLP's ``partial_success.error_message``: how many were left out and the first reasons."""
        if not self.rejections:
            return ""
        what = "span" if self.signal is Signal.TRACES else "record of span"
        reasons = "; ".join(
            f"{what} {r.span_id or '(no id)'}: {r.reason}" for r in self.rejections[:MAX_REASONS]
        )
        more = len(self.rejections) - MAX_REASONS
        tail = f"; and {more} more" if more > 0 else ""
        noun = "spans" if self.signal is Signal.TRACES else "log records"
        return f"{len(self.rejections)} {noun} rejected: {reasons}{tail}"

    def answer(self) -> Message:
        """The ``ExportTraceServiceResponse`` (or ``ExportLogsServiceResponse``)."""
        if self.signal is Signal.LOGS:
            logs = ExportLogsServiceResponse()
            if self.rejections:
                logs.partial_success.CopyFrom(
                    ExportLogsPartialSuccess(
                        rejected_log_records=len(self.rejections), error_message=self.error_message()
                    )
                )
            return logs
        traces = ExportTraceServiceResponse()
        if self.rejections:
            traces.partial_success.CopyFrom(
                ExportTracePartialSuccess(
                    rejected_spans=len(self.rejections), error_message=self.error_message()
                )
            )
        return traces

    def response(self, encoding: Encoding) -> bytes:
        """The answer, in the request's encoding."""
        answer = self.answer()
        if encoding is Encoding.PROTOBUF:
            return answer.SerializeToString()
        return json_format.MessageToJson(answer, indent=None).encode()


def prepare_export(request: ExportBody, limits: SpanLimits, max_message_bytes: int) -> PreparedExport:
    conversion = _convert(request, limits)
    batches, too_large = (
        encode_batches(request.project_id, request.received_at, conversion.groups, max_message_bytes)
        if conversion.groups
        else ([], [])
    )
    return PreparedExport(
        signal=request.signal,
        batches=batches,
        accepted=conversion.accepted - len(too_large),
        rejections=conversion.rejections + too_large,
    )


def _convert(request: ExportBody, limits: SpanLimits) -> Conversion:
    if request.signal is Signal.LOGS:
        return convert_logs(decode_logs_request(request.body, request.encoding), limits)
    return convert_request(decode_request(request.body, request.encoding), limits)
