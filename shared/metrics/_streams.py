"""JetStream consumer lag, read from the server (``consumer_info``) at scrape time."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable

import nats.errors
from nats.js import JetStreamContext
from prometheus_client import Gauge

from shared.metrics._exposition import Probe

log = logging.getLogger(__name__)

CONSUMER_PENDING = Gauge(
    "yardstick_jetstream_consumer_pending_messages",
    "Messages in the stream not yet delivered to the durable consumer (JetStream num_pending): "
    "the backlog workers have not fetched.",
    ["stream", "consumer"],
)
CONSUMER_ACK_PENDING = Gauge(
    "yardstick_jetstream_consumer_ack_pending_messages",
    "Messages delivered to the durable consumer and not yet acknowledged (JetStream "
    "num_ack_pending): the work in progress.",
    ["stream", "consumer"],
)
CONSUMER_INFO_TIMEOUT_S = 2.0


def consumer_lag_probe(
    jetstream: Callable[[], JetStreamContext | None], consumers: Callable[[], Iterable[tuple[str, str]]]
) -> Probe:
    """A probe that sets both gauges for each ``(stream, durable consumer)``; a consumer the server
    cannot describe now keeps its last values (and is logged)."""

    async def probe() -> None:
        js = jetstream()
        if js is None:
            return
        for stream, consumer in consumers():
            try:
                info = await js.consumer_info(stream, consumer, timeout=CONSUMER_INFO_TIMEOUT_S)
            except (nats.errors.Error, TimeoutError) as exc:
                fields = {"stream": stream, "consumer": consumer, "error": repr(exc)}
                log.info("consumer info unavailable", extra=fields)
                continue
            CONSUMER_PENDING.labels(stream, consumer).set(info.num_pending or 0)
            CONSUMER_ACK_PENDING.labels(stream, consumer).set(info.num_ack_pending or 0)

    return probe
