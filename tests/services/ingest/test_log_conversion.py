"""GenAI events sent as OTLP logs into carrier spans: each joined to the span it was emitted in, the
records that cannot be joined (or are no GenAI events) left out with the reason. Records come from the
real OpenTelemetry SDK's logger and its OTLP encoder."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime

import pytest
from google.protobuf import json_format
from opentelemetry._logs import LogRecord
from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceResponse
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk.trace import TracerProvider

from services.ingest.errors import TooManySpans
from services.ingest.export_preparation import ExportBody, Signal, prepare_export
from services.ingest.log_conversion import convert_logs
from services.ingest.otlp_decoding import Encoding
from services.ingest.span_conversion import SpanLimits
from shared.contracts.span_messages import LOG_RECORD_ATTRIBUTE, SpanBatch
from tests.services.ingest.harness import make_spans_and_logs

pytestmark = pytest.mark.unit
NOW = datetime(2026, 11, 28, tzinfo=UTC)


def _turn(tracer_provider: TracerProvider, logger_provider: LoggerProvider) -> None:
    """A chat span with its messages as events (as EVENT_ONLY instrumentations send them), an event
    outside any span, and an ordinary application log."""
    logger = logger_provider.get_logger("test.genai")
    with tracer_provider.get_tracer("test").start_as_current_span("chat gpt-test"):
        logger.emit(LogRecord(event_name="gen_ai.user.message", body={"content": "How much is a burger?"}))
        logger.emit(
            LogRecord(
                event_name="gen_ai.choice",
                body={"index": 0, "finish_reason": "stop", "message": {"content": "5 dollars."}},
                attributes={"gen_ai.system": "openai"},
            )
        )
        logger.emit(LogRecord(body="cache miss for burger"))  # not an event: not kept
    logger.emit(LogRecord(event_name="gen_ai.user.message", body={"content": "outside"}))


def test_events_become_children_of_their_span_and_the_rest_is_left_out_with_why() -> None:
    spans, logs = make_spans_and_logs(_turn)
    [chat] = spans
    conversion = convert_logs(encode_logs(logs), SpanLimits())
    [group] = conversion.groups
    assert group.resource["service.name"] == "shop-assistant" and group.scope_name == "test.genai"
    assert [carrier.name for carrier in group.spans] == ["gen_ai.user.message", "gen_ai.choice"]
    parent = format(chat.context.span_id, "016x") if chat.context else ""
    for carrier in group.spans:
        assert carrier.parent_span_id == parent
        assert carrier.trace_id == format(chat.context.trace_id, "032x") if chat.context else ""
        assert carrier.attributes == {LOG_RECORD_ATTRIBUTE: True}
        assert carrier.start_unix_nano == carrier.end_unix_nano == carrier.events[0].time_unix_nano > 0
    user, choice = (carrier.events[0] for carrier in group.spans)
    assert user.attributes == {"content": "How much is a burger?"}
    assert choice.attributes == {
        "index": 0,
        "finish_reason": "stop",
        "message": {"content": "5 dollars."},
        "gen_ai.system": "openai",
    }
    assert conversion.accepted == 2
    reasons = [r.reason for r in conversion.rejections]
    assert reasons[0].startswith("a log record without an event name is not a GenAI event (gen_ai.*)")
    assert reasons[1].startswith("event 'gen_ai.user.message' has no trace and span id: emit it while")

    again = convert_logs(encode_logs(logs), SpanLimits())  # an exporter's retry: the same span ids
    assert [c.span_id for c in again.groups[0].spans] == [c.span_id for c in group.spans]
    assert len({c.span_id for c in group.spans}) == 2


def test_too_many_records_are_refused_whole_and_a_long_body_is_left_out() -> None:
    _, logs = make_spans_and_logs(_turn)
    with pytest.raises(TooManySpans, match=r"4 log records in one request, at most 3: .*OTEL_BLRP"):
        convert_logs(encode_logs(logs), SpanLimits(max_spans=3))

    def long_body(tracer_provider: TracerProvider, logger_provider: LoggerProvider) -> None:
        with tracer_provider.get_tracer("test").start_as_current_span("chat"):
            logger_provider.get_logger("x").emit(
                LogRecord(event_name="gen_ai.user.message", body={"content": "x" * 2000})
            )

    _, logs = make_spans_and_logs(long_body)
    conversion = convert_logs(encode_logs(logs), SpanLimits(max_value_bytes=1000))
    assert conversion.groups == []
    assert conversion.rejections[0].reason == "attribute 'body' is longer than 1000 bytes"


def test_json_logs_are_decoded_with_hex_ids_and_answered_with_a_logs_partial_success() -> None:
    _, logs = make_spans_and_logs(_turn)
    document = json_format.MessageToDict(encode_logs(logs))
    for resource in document["resourceLogs"]:
        for scope in resource["scopeLogs"]:
            for record in scope["logRecords"]:
                for field in ("traceId", "spanId"):
                    if field in record:
                        record[field] = base64.b64decode(record[field]).hex()
    body = ExportBody(
        body=json.dumps(document).encode(),
        encoding=Encoding.JSON,
        project_id="default",
        received_at=NOW,
        signal=Signal.LOGS,
    )
    prepared = prepare_export(body, SpanLimits(), max_message_bytes=1 << 20)
    assert prepared.accepted == 2
    [message] = prepared.batches
    batch = SpanBatch.model_validate_json(message.payload)
    assert [span.name for _, span in batch.spans()] == ["gen_ai.user.message", "gen_ai.choice"]
    answer = ExportLogsServiceResponse()
    answer.ParseFromString(prepared.response(Encoding.PROTOBUF))
    assert answer.partial_success.rejected_log_records == 2
    message_text = answer.partial_success.error_message
    assert message_text.startswith("2 log records rejected: record of span ")
    assert (
        "is not a GenAI event" in message_text
        and "record of span (no id): event 'gen_ai.user" in message_text
    )
