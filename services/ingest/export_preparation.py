"""One export request body into the messages to publish and the OTLP answer: pure, no I/O.

decode (protobuf or JSON) → check and convert each span → cut into messages (the body was
inflated before, when gzip: the receiver holds its inflated size against the in-flight bound).
The receiver runs it in a worker thread, so a large body does not hold up the event loop.
"""

from __future__ import annotations

from datetime import datetime

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTracePartialSuccess,
    ExportTraceServiceResponse,
)
from pydantic import BaseModel, Field

from services.ingest.batching import EncodedBatch, encode_batches
from services.ingest.otlp_decoding import Encoding, decode_request
from services.ingest.span_conversion import Rejection, SpanLimits, convert_request

MAX_REASONS = 3


class ExportBody(BaseModel, frozen=True):
    """The request as received (inflated)."""

    body: bytes
    encoding: Encoding
    project_id: str
    received_at: datetime


class PreparedExport(BaseModel, frozen=True):
    batches: list[EncodedBatch] = Field(description="Messages for traffic.spans")
    accepted: int = Field(description="Spans in the messages")
    rejections: list[Rejection] = Field(description="Spans left out, with why")

    def error_message(self) -> str:
        """OTLP's ``partial_success.error_message``: how many were left out and the first reasons."""
        if not self.rejections:
            return ""
        reasons = "; ".join(
            f"span {r.span_id or '(no id)'}: {r.reason}" for r in self.rejections[:MAX_REASONS]
        )
        more = len(self.rejections) - MAX_REASONS
        tail = f"; and {more} more" if more > 0 else ""
        return f"{len(self.rejections)} spans rejected: {reasons}{tail}"

    def response(self, encoding: Encoding) -> bytes:
        """The ``ExportTraceServiceResponse``, in the request's encoding."""
        answer = ExportTraceServiceResponse()
        if self.rejections:
            answer.partial_success.CopyFrom(
                ExportTracePartialSuccess(
                    rejected_spans=len(self.rejections), error_message=self.error_message()
                )
            )
        if encoding is Encoding.PROTOBUF:
            return answer.SerializeToString()
        return json_format.MessageToJson(answer, indent=None).encode()


def prepare_export(request: ExportBody, limits: SpanLimits, max_message_bytes: int) -> PreparedExport:
    conversion = convert_request(decode_request(request.body, request.encoding), limits)
    batches, too_large = (
        encode_batches(request.project_id, request.received_at, conversion.groups, max_message_bytes)
        if conversion.groups
        else ([], [])
    )
    return PreparedExport(
        batches=batches,
        accepted=conversion.accepted - len(too_large),
        rejections=conversion.rejections + too_large,
    )
