"""Production traffic for the HA fault tests: OTLP traces POSTed to the stack's ingest service (as an
exporter would, retrying 429/503 and refused connections), then what the sampler made of them: its
decisions (its Prometheus counter) and the traces and scores it stored (PostgreSQL)."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import httpx
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from prometheus_client.parser import text_string_to_metric_families

from services.sampler.sampling import in_sample
from tests.services.ingest.harness import chat_trace, make_spans
from tests.services.stack.fault_helpers import query

DECISIONS = "yardstick_sampler_decisions"  # the parser drops the counter's _total


def trace_bodies(application: str, count: int) -> dict[str, bytes]:
    """``count`` small agent traces of ``application``, one OTLP protobuf body each, by trace id."""
    bodies: dict[str, bytes] = {}
    for _ in range(count):
        spans = make_spans(chat_trace, service=application)
        assert spans[0].context is not None
        bodies[format(spans[0].context.trace_id, "032x")] = encode_spans(spans).SerializeToString()
    return bodies


def sampled(trace_ids: list[str], rate: float) -> set[str]:
    """The traces the sampler must keep at ``rate`` (no conversation id: the hash reads the trace id)."""
    return {t for t in trace_ids if in_sample(f"trace:{t}", rate)}


@dataclass(eq=False)  # a thread must stay hashable
class Sender(threading.Thread):
    """Sends every body once accepted (200), one request at a time, ``gap_s`` apart."""

    url: str
    key: str
    bodies: list[bytes]
    gap_s: float = 0.2
    deadline_s: float = 120.0
    answers: dict[int, int] = field(default_factory=dict)  # status -> count (0: no connection)
    error: str | None = None

    def __post_init__(self) -> None:
        super().__init__(daemon=True)

    def run(self) -> None:
        headers = {"Authorization": f"Bearer {self.key}", "Content-Type": "application/x-protobuf"}
        deadline = time.monotonic() + self.deadline_s
        with httpx.Client(timeout=15) as client:
            for body in self.bodies:
                while True:
                    try:
                        status = client.post(
                            f"{self.url}/v1/traces", content=body, headers=headers
                        ).status_code
                    except httpx.HTTPError:
                        status = 0
                    self.answers[status] = self.answers.get(status, 0) + 1
                    if status == 200:
                        break
                    if status not in (0, 429, 503) or time.monotonic() > deadline:
                        self.error = f"answered {status}"
                        return
                    time.sleep(0.5)
                time.sleep(self.gap_s)


def sampler_decisions(sampler_url: str, application: str) -> dict[str, float]:
    """decision -> count of the sampler's decisions on ``application``'s traces (its /metrics)."""
    text = httpx.get(f"{sampler_url}/metrics", timeout=5).text
    out: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        if family.name == DECISIONS:
            for sample in family.samples:
                if sample.name.endswith("_total") and sample.labels.get("application") == application:
                    out[sample.labels["decision"]] = sample.value
    return out


def stored_traces(database_url: str, application: str) -> dict[str, list[int]]:
    """trace id -> rows per score name of each stored trace of ``application`` (once: all 1s)."""
    rows = query(
        database_url,
        "SELECT t.trace_id, count(s.id) FROM traces t "
        "LEFT JOIN trace_scores s ON s.trace_pk = t.id AND s.day = t.day "
        "WHERE t.application = %s GROUP BY t.trace_id, s.name",
        application,
    )
    out: dict[str, list[int]] = {}
    for trace_id, count in rows:
        out.setdefault(str(trace_id), []).append(int(count))
    return out
