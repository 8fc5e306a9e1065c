"""What the targets under test answer a worker: errors, throttles, the adaptive concurrency."""

from __future__ import annotations

from prometheus_client import Counter, Gauge

TARGET_ERRORS = Counter(
    "yardstick_target_errors_total",
    "Target calls that failed (timeout, refused, 5xx, bad answer), by target kind and whether the "
    "failure is transient (retried with a backoff) or final for this delivery.",
    ["kind", "transient"],
)
TARGET_THROTTLES = Counter(
    "yardstick_target_throttles_total",
    "Target answers that asked the worker to slow down (429, or 503 with Retry-After), by target "
    "kind and HTTP status; the call is retried inside the same delivery.",
    ["kind", "status"],
)
TARGET_CONCURRENCY = Gauge(
    "yardstick_target_concurrency",
    "Calls this worker may make at once to a target (AIMD: halved on a throttle, grown on success), "
    "by target (the hashed identity that keys the throttle board).",
    ["target"],
)
