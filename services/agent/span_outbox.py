"""The chat turns' traces survive an ingest (or NATS) outage of any length: a
:class:`~opentelemetry.sdk.trace.export.SpanExporter` wrapping the OTLP exporter stores each batch it
could not deliver in PostgreSQL (``span_outbox``, the serialized OTLP ``ExportTraceServiceRequest``),
and a drainer thread re-sends the stored batches oldest first once the ingest accepts again.

- Both run outside the event loop (the exporter in the BatchSpanProcessor's thread, the drainer in its
  own), so they use short synchronous psycopg connections, never the service's asyncio engine.
- The drainer takes a row with ``FOR UPDATE SKIP LOCKED`` and holds the lock while sending: two agent
  replicas never send the same row at once. A row is deleted once the ingest answers 2xx; 400/413
  (a batch the ingest will never take) are dropped and logged; anything else keeps the row (attempts,
  last_error) and the drainer backs off, doubling up to ``retry_max_s`` (or waits the ingest's
  ``Retry-After`` on a 429/503, within ``retry_max_s``).
- A batch re-sent after an answer that was lost on the way cannot double a trace: the sampler stores
  spans idempotently by (trace, span_id) (``services/sampler/trace_store.py``).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import httpx
import psycopg
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult
from pydantic import BaseModel

from shared.db.session import plain_url
from shared.http.retry_after import RETRY_AFTER_STATUSES, retry_after_s

log = logging.getLogger(__name__)

PERMANENT_STATUSES = frozenset({400, 413})  # the ingest will never take this body
IDLE_POLL_S = 5.0  # how often an idle drainer looks for rows (another replica's, say)


@dataclass(frozen=True)
class SendOutcome:
    delivered: bool
    permanent: bool = False
    error: str | None = None
    retry_after_s: float | None = None
    """The ingest's ``Retry-After`` (429/503): the drainer waits that long (within ``retry_max_s``)
    instead of its own back-off."""


class OutboxState(BaseModel):
    """What ``/healthz`` says about the traces: held in the outbox, and whether the ingest answers."""

    held_batches: int
    held_spans: int
    oldest_age_s: float | None
    ingest_reachable: bool | None  # None: nothing was sent yet
    last_error: str | None


@dataclass
class ExportStatus:
    """The outcome of the newest export or re-send (written from two threads; reads are snapshots)."""

    reachable: bool | None = None
    last_error: str | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, reachable: bool, error: str | None = None) -> None:
        with self._lock:
            self.reachable = reachable
            if error is not None:
                self.last_error = error


class SpanOutboxStore:
    """The ``span_outbox`` table through short synchronous psycopg connections."""

    def __init__(self, database_url: str) -> None:
        self._url = plain_url(database_url)

    def put(self, body: bytes, spans: int, error: str) -> None:
        with psycopg.connect(self._url) as conn:
            conn.execute(
                "INSERT INTO span_outbox (body, spans, created_at, attempts, last_error) "
                "VALUES (%s, %s, now(), 1, %s)",
                (body, spans, error),
            )

    def send_oldest(self, send: Callable[[bytes], SendOutcome]) -> SendOutcome | None:
        """Send the oldest row no one else is sending; None when there is none."""
        with psycopg.connect(self._url) as conn:
            row = conn.execute(
                "SELECT id, body FROM span_outbox ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED"
            ).fetchone()
            if row is None:
                return None
            row_id, body = row
            outcome = send(bytes(body))
            if outcome.delivered or outcome.permanent:
                conn.execute("DELETE FROM span_outbox WHERE id = %s", (row_id,))
            else:
                conn.execute(
                    "UPDATE span_outbox SET attempts = attempts + 1, last_error = %s WHERE id = %s",
                    (outcome.error, row_id),
                )
            return outcome

    def held(self) -> tuple[int, int, float | None]:
        """(batches, spans, age in seconds of the oldest) waiting in the outbox."""
        with psycopg.connect(self._url) as conn:
            row = conn.execute(
                "SELECT count(*), coalesce(sum(spans), 0), "
                "extract(epoch FROM now() - min(created_at)) FROM span_outbox"
            ).fetchone()
        assert row is not None
        return int(row[0]), int(row[1]), None if row[2] is None else float(row[2])


class OtlpSender:
    """POSTs a stored ``ExportTraceServiceRequest`` to the OTLP/HTTP endpoint as it is."""

    def __init__(self, url: str, headers: Mapping[str, str], timeout_s: float) -> None:
        self._url = url
        self._headers = {**headers, "Content-Type": "application/x-protobuf"}
        self._client = httpx.Client(timeout=timeout_s)

    def __call__(self, body: bytes) -> SendOutcome:
        try:
            response = self._client.post(self._url, content=body, headers=self._headers)
        except httpx.HTTPError as exc:
            return SendOutcome(False, error=f"{type(exc).__name__}: {exc}")
        if response.is_success:
            return SendOutcome(True)
        error = f"HTTP {response.status_code}: {response.text[:200]}"
        if response.status_code in PERMANENT_STATUSES:
            log.error("the ingest refused a stored trace batch for good, dropping it: %s", error)
            return SendOutcome(False, permanent=True, error=error)
        wait = None
        if response.status_code in RETRY_AFTER_STATUSES:
            wait = retry_after_s(response.headers.get("Retry-After"))
        return SendOutcome(False, error=error, retry_after_s=wait)

    def close(self) -> None:
        self._client.close()


class OutboxDrainer:
    """A thread re-sending the outbox's rows oldest first, backing off while the ingest refuses."""

    def __init__(
        self,
        store: SpanOutboxStore,
        send: Callable[[bytes], SendOutcome],
        status: ExportStatus,
        *,
        retry_min_s: float = 0.5,
        retry_max_s: float = 30.0,
        idle_poll_s: float = IDLE_POLL_S,
    ) -> None:
        self._store, self._send, self._status = store, send, status
        self._retry_min_s, self._retry_max_s, self._idle_poll_s = retry_min_s, retry_max_s, idle_poll_s
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="span-outbox-drainer", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def wake(self) -> None:
        """Look at the outbox now (a live export just went through: the ingest is back)."""
        self._wake.set()

    def stop(self, timeout_s: float = 10.0) -> None:
        self._stopping.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout_s)

    def _run(self) -> None:
        delay = self._retry_min_s
        while not self._stopping.is_set():
            try:
                outcome = self._store.send_oldest(self._send)
            except Exception as exc:  # Postgres away: the rows are safe there, look again later
                log.warning("the span outbox could not be read: %s", exc)
                outcome = SendOutcome(False)
            if outcome is None:
                delay = self._retry_min_s
                self._wake.wait(self._idle_poll_s)
            elif outcome.delivered or outcome.permanent:
                self._status.record(True, outcome.error)  # it answered, even when it refused for good
                delay = self._retry_min_s
                continue
            else:
                if outcome.error is not None:
                    self._status.record(False, outcome.error)
                if outcome.retry_after_s is not None:  # the ingest said when: neither sooner nor later
                    self._wake.wait(min(outcome.retry_after_s, self._retry_max_s))
                else:
                    self._wake.wait(delay)
                    delay = min(delay * 2, self._retry_max_s)
            self._wake.clear()


class DurableSpanExporter(SpanExporter):
    """``inner``'s exports; a batch it could not deliver goes to the outbox instead of being dropped."""

    def __init__(
        self, inner: SpanExporter, store: SpanOutboxStore, status: ExportStatus, drainer: OutboxDrainer
    ) -> None:
        self._inner, self._store, self._status, self._drainer = inner, store, status, drainer

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        try:
            result = self._inner.export(spans)
            error = "the ingest refused the export or could not be reached"
        except Exception as exc:
            result, error = SpanExportResult.FAILURE, f"{type(exc).__name__}: {exc}"
        if result is SpanExportResult.SUCCESS:
            self._status.record(True)
            self._drainer.wake()
            return result
        self._status.record(False, error)
        started = time.monotonic()
        try:
            self._store.put(encode_spans(spans).SerializeToString(), len(spans), error)
        except Exception:
            log.exception(
                "a trace batch could neither be exported nor kept in the outbox: %d spans lost", len(spans)
            )
            return SpanExportResult.FAILURE
        log.warning(
            "trace batch kept in the span outbox until the ingest accepts it",
            extra={
                "spans": len(spans),
                "error": error,
                "store_ms": round((time.monotonic() - started) * 1000),
            },
        )
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        self._inner.shutdown()

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        return self._inner.force_flush(timeout_millis)


class SpanOutbox:
    """The durable exporter around ``inner``, its drainer and what ``/healthz`` reports of them."""

    def __init__(
        self,
        inner: SpanExporter,
        database_url: str,
        send: OtlpSender,
        *,
        retry_max_s: float = 30.0,
    ) -> None:
        self.store = SpanOutboxStore(database_url)
        self._send = send
        self.status = ExportStatus()
        self.drainer = OutboxDrainer(self.store, send, self.status, retry_max_s=retry_max_s)
        self.exporter = DurableSpanExporter(inner, self.store, self.status, self.drainer)

    def start(self) -> None:
        self.drainer.start()

    def stop(self) -> None:
        self.drainer.stop()
        self._send.close()

    def state(self) -> OutboxState:
        batches, spans, oldest = self.store.held()
        return OutboxState(
            held_batches=batches,
            held_spans=spans,
            oldest_age_s=oldest,
            ingest_reachable=self.status.reachable,
            last_error=self.status.last_error,
        )
