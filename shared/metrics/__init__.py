"""Prometheus metrics of every Yardstick service, each defined once, and ``GET /metrics``.

- ``_work``: eval tasks published, in flight, settled; results stored;
- ``_targets``: target errors, throttles (429/503), adaptive concurrency;
- ``_streams``: JetStream consumer lag (num_pending / num_ack_pending) at scrape time;
- ``_traffic``: spans ingested, sampler decisions;
- ``_connections``: NATS and PostgreSQL connection state at scrape time;
- ``_exposition``: the ``/metrics`` route and the probes it runs before rendering.

Names follow Prometheus' conventions: ``yardstick_`` prefix, ``_total`` for counters, base units.
``docs/gen`` lists every registered ``yardstick_*`` metric with its help text (docs/operations).
"""

from shared.metrics._connections import CONNECTION_UP, nats_probe, postgres_probe
from shared.metrics._exposition import Probe, metrics_router, run_probes
from shared.metrics._streams import CONSUMER_ACK_PENDING, CONSUMER_PENDING, consumer_lag_probe
from shared.metrics._targets import TARGET_CONCURRENCY, TARGET_ERRORS, TARGET_THROTTLES
from shared.metrics._traffic import EXPORTS_REFUSED, SAMPLER_DECISIONS, SPANS_INGESTED
from shared.metrics._work import (
    CREDITS_GRANTED,
    RESULT_WRITE_FAILURES,
    RESULTS_STORED,
    TASKS_IN_FLIGHT,
    TASKS_PARKED,
    TASKS_PUBLISHED,
    TASKS_RETURNED,
    TASKS_SETTLED,
)
from shared.metrics.catalogue import MetricDoc, yardstick_metrics

__all__ = [
    "CONNECTION_UP",
    "CONSUMER_ACK_PENDING",
    "CONSUMER_PENDING",
    "CREDITS_GRANTED",
    "EXPORTS_REFUSED",
    "RESULTS_STORED",
    "RESULT_WRITE_FAILURES",
    "SAMPLER_DECISIONS",
    "SPANS_INGESTED",
    "TARGET_CONCURRENCY",
    "TARGET_ERRORS",
    "TARGET_THROTTLES",
    "TASKS_IN_FLIGHT",
    "TASKS_PARKED",
    "TASKS_PUBLISHED",
    "TASKS_RETURNED",
    "TASKS_SETTLED",
    "MetricDoc",
    "Probe",
    "consumer_lag_probe",
    "metrics_router",
    "nats_probe",
    "postgres_probe",
    "run_probes",
    "yardstick_metrics",
]
