"""The span outbox: a batch the OTLP exporter could not deliver (it returned FAILURE or raised) is
kept as an OTLP ExportTraceServiceRequest instead of being dropped; the drainer re-sends stored
batches oldest first, deletes them once accepted, backs off while refused; two drainers never send
the same row (SKIP LOCKED)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

import httpx
import psycopg
import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from services.agent.span_outbox import (
    DurableSpanExporter,
    ExportStatus,
    OtlpSender,
    OutboxDrainer,
    SendOutcome,
    SpanOutboxStore,
)
from shared.db.session import plain_url
from tests.services.ingest.harness import chat_trace, make_spans


class FakeExporter(SpanExporter):
    def __init__(self, result: SpanExportResult | Exception) -> None:
        self.result = result
        self.calls = 0

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        self.calls += 1
        if isinstance(self.result, Exception):
            raise self.result
        return self.result


class MemoryStore(SpanOutboxStore):
    """The outbox in a list (unit tests); ``fail`` makes ``put`` raise like Postgres away."""

    def __init__(self, fail: bool = False) -> None:
        self.rows: list[tuple[bytes, int, str]] = []
        self.fail = fail

    def put(self, body: bytes, spans: int, error: str) -> None:
        if self.fail:
            raise OSError("connection refused")
        self.rows.append((body, spans, error))

    def send_oldest(self, send: Callable[[bytes], SendOutcome]) -> SendOutcome | None:
        if not self.rows:
            return None
        outcome = send(self.rows[0][0])
        if outcome.delivered or outcome.permanent:
            self.rows.pop(0)
        return outcome


def _durable(inner: SpanExporter, store: SpanOutboxStore) -> tuple[DurableSpanExporter, ExportStatus]:
    status = ExportStatus()
    drainer = OutboxDrainer(store, lambda body: SendOutcome(True), status)
    return DurableSpanExporter(inner, store, status, drainer), status


@pytest.mark.unit
@pytest.mark.parametrize("failure", [SpanExportResult.FAILURE, ConnectionError("ingest away")])
def test_a_batch_the_exporter_could_not_deliver_is_kept_as_otlp(
    failure: SpanExportResult | Exception,
) -> None:
    spans = make_spans(lambda p: chat_trace(p, turns=2), service="drive-thru")
    store = MemoryStore()
    exporter, status = _durable(FakeExporter(failure), store)

    assert exporter.export(spans) is SpanExportResult.SUCCESS  # kept: the processor need not retry it
    [(body, count, error)] = store.rows
    request = ExportTraceServiceRequest.FromString(body)
    stored = [s for rs in request.resource_spans for ss in rs.scope_spans for s in ss.spans]
    assert count == len(spans) == len(stored)
    assert {s.span_id for s in stored} == {span.context.span_id.to_bytes(8, "big") for span in spans}
    attributes = request.resource_spans[0].resource.attributes
    assert {a.key: a.value.string_value for a in attributes}["service.name"] == "drive-thru"
    assert status.reachable is False and status.last_error == error
    if isinstance(failure, Exception):
        assert "ingest away" in error


@pytest.mark.unit
def test_a_delivered_batch_is_not_kept_and_says_the_ingest_answers() -> None:
    store = MemoryStore()
    inner = FakeExporter(SpanExportResult.SUCCESS)
    exporter, status = _durable(inner, store)
    assert exporter.export(make_spans(chat_trace)) is SpanExportResult.SUCCESS
    assert inner.calls == 1 and store.rows == [] and status.reachable is True


@pytest.mark.unit
def test_a_batch_neither_delivered_nor_kept_is_reported_failed() -> None:
    exporter, _ = _durable(FakeExporter(SpanExportResult.FAILURE), MemoryStore(fail=True))
    assert exporter.export(make_spans(chat_trace)) is SpanExportResult.FAILURE


@pytest.mark.unit
def test_the_drainer_backs_off_while_refused_then_sends_oldest_first() -> None:
    store = MemoryStore()
    for n in range(3):
        store.put(f"batch-{n}".encode(), 1, "refused")
    sent: list[bytes] = []
    refusals = 3
    all_sent = threading.Event()

    def send(body: bytes) -> SendOutcome:
        nonlocal refusals
        if refusals:
            refusals -= 1
            return SendOutcome(False, error="HTTP 503: nats unreachable")
        sent.append(body)
        if len(sent) == 3:
            all_sent.set()
        return SendOutcome(True)

    status = ExportStatus()
    drainer = OutboxDrainer(store, send, status, retry_min_s=0.01, retry_max_s=0.05)
    drainer.start()
    try:
        assert all_sent.wait(10)
    finally:
        drainer.stop()
    assert sent == [b"batch-0", b"batch-1", b"batch-2"] and store.rows == []
    assert status.reachable is True and status.last_error == "HTTP 503: nats unreachable"


@pytest.mark.integration
def test_two_drainers_never_send_the_same_row_and_a_refused_row_stays(database_url: str) -> None:
    store = SpanOutboxStore(database_url)
    store.put(b"first", 2, "refused")
    store.put(b"second", 3, "refused")
    assert store.held()[:2] == (2, 5)
    holding, release = threading.Event(), threading.Event()
    bodies: list[bytes] = []

    def slow_send(body: bytes) -> SendOutcome:
        bodies.append(body)
        holding.set()
        release.wait(10)
        return SendOutcome(True)

    first = threading.Thread(target=store.send_oldest, args=(slow_send,))
    first.start()
    assert holding.wait(10)  # the first drainer holds the oldest row's lock while sending it

    def refused(body: bytes) -> SendOutcome:
        bodies.append(body)
        return SendOutcome(False, error="HTTP 503")

    outcome = store.send_oldest(refused)  # the second drainer skips the locked row
    release.set()
    first.join(10)
    assert bodies == [b"first", b"second"] and outcome == SendOutcome(False, error="HTTP 503")
    with psycopg.connect(plain_url(database_url)) as conn:
        rows = conn.execute("SELECT body, attempts, last_error FROM span_outbox").fetchall()
    assert rows == [(b"second", 2, "HTTP 503")]


@pytest.mark.unit
def test_the_drainer_waits_what_the_ingests_retry_after_says_not_its_own_back_off() -> None:
    store = MemoryStore()
    store.put(b"batch", 1, "refused")
    answers = [SendOutcome(False, error="HTTP 429", retry_after_s=0.0)] * 3 + [SendOutcome(True)]
    delivered = threading.Event()

    def send(body: bytes) -> SendOutcome:
        outcome = answers.pop(0)
        if outcome.delivered:
            delivered.set()
        return outcome

    # its own back-off would wait 60 s after the first refusal; Retry-After: 0 says "again now"
    drainer = OutboxDrainer(store, send, ExportStatus(), retry_min_s=60.0, retry_max_s=120.0)
    drainer.start()
    try:
        assert delivered.wait(10)
    finally:
        drainer.stop()
    assert answers == [] and store.rows == []


@pytest.mark.unit
@pytest.mark.parametrize(("status", "expected"), [(429, 7.0), (503, 7.0), (500, None)])
def test_the_sender_reads_retry_after_on_429_and_503(status: int, expected: float | None) -> None:
    sender = OtlpSender("http://ingest.test/v1/traces", {}, timeout_s=5)
    sender._client = httpx.Client(
        transport=httpx.MockTransport(lambda _: httpx.Response(status, headers={"Retry-After": "7"}))
    )
    try:
        outcome = sender(b"batch")
    finally:
        sender.close()
    assert not outcome.delivered and outcome.retry_after_s == expected
