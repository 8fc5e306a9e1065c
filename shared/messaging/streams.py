"""JetStream streams and durable consumers, declared once by the launcher (and by test fixtures).

Services bind to these by name; the consumer configuration here is the single source of truth,
so a subscriber's ``ConsumerConfig`` and the declared one never disagree.
"""

from __future__ import annotations

import asyncio
import logging

import nats
from nats.js import JetStreamContext
from nats.js.api import (
    AckPolicy,
    ConsumerConfig,
    DeliverPolicy,
    KeyValueConfig,
    RetentionPolicy,
    StorageType,
    StreamConfig,
)
from nats.js.errors import NotFoundError, ServerError

from shared.contracts.topology import (
    COORDINATOR_RESULTS_CONSUMER,
    EVAL_WORKERS_CONSUMER,
    SAMPLER_CONSUMER,
    SAMPLER_SPANS_CONSUMER,
    Topology,
)

log = logging.getLogger(__name__)

DUPLICATE_WINDOW_S = 120.0
EVAL_TASK_ACK_WAIT_S = 30.0
EVAL_TASK_MAX_DELIVER = 4
RESULT_ACK_WAIT_S = 30.0
TRAFFIC_ACK_WAIT_S = 30.0
TRAFFIC_SPANS_ACK_WAIT_S = 60.0
TRAFFIC_SPANS_MAX_DELIVER = 20
TRAFFIC_MAX_AGE_S = 7 * 24 * 3600.0
THROTTLE_STATE_TTL_S = 3600.0
"""A target's pause and rate schedule are forgotten an hour after their last change."""


def stream_configs(topology: Topology) -> list[StreamConfig]:
    return [
        StreamConfig(
            name=topology.eval_tasks_stream,
            subjects=[topology.eval_task],
            retention=RetentionPolicy.WORK_QUEUE,
            storage=StorageType.FILE,
            duplicate_window=DUPLICATE_WINDOW_S,
        ),
        StreamConfig(
            name=topology.eval_results_stream,
            subjects=[topology.eval_result],
            retention=RetentionPolicy.WORK_QUEUE,
            storage=StorageType.FILE,
            duplicate_window=DUPLICATE_WINDOW_S,
        ),
        StreamConfig(
            name=topology.traffic_stream,
            subjects=[topology.traffic_agent],
            retention=RetentionPolicy.LIMITS,
            storage=StorageType.FILE,
            max_age=TRAFFIC_MAX_AGE_S,
            duplicate_window=DUPLICATE_WINDOW_S,
        ),
        StreamConfig(
            name=topology.traffic_spans_stream,
            subjects=[topology.traffic_spans],
            retention=RetentionPolicy.LIMITS,
            storage=StorageType.FILE,
            max_age=TRAFFIC_MAX_AGE_S,
            duplicate_window=DUPLICATE_WINDOW_S,
        ),
        StreamConfig(
            name=topology.alerts_stream,
            subjects=[topology.alerts],
            retention=RetentionPolicy.LIMITS,
            storage=StorageType.FILE,
            max_age=30 * 24 * 3600.0,
        ),
    ]


def target_throttle_bucket(topology: Topology) -> KeyValueConfig:
    """The KV bucket of ``services/evaluator/throttling/board.py``: one key per target identity."""
    return KeyValueConfig(
        bucket=topology.target_throttle_bucket,
        history=1,
        ttl=THROTTLE_STATE_TTL_S,
        storage=StorageType.MEMORY,
    )


def eval_workers_consumer(
    max_deliver: int = EVAL_TASK_MAX_DELIVER, ack_wait: float = EVAL_TASK_ACK_WAIT_S
) -> ConsumerConfig:
    """The one durable pull consumer that every eval worker process shares."""
    return ConsumerConfig(
        durable_name=EVAL_WORKERS_CONSUMER,
        ack_policy=AckPolicy.EXPLICIT,
        ack_wait=ack_wait,
        max_deliver=max_deliver,
        deliver_policy=DeliverPolicy.ALL,
        max_ack_pending=10_000,
    )


def coordinator_results_consumer() -> ConsumerConfig:
    return ConsumerConfig(
        durable_name=COORDINATOR_RESULTS_CONSUMER,
        ack_policy=AckPolicy.EXPLICIT,
        ack_wait=RESULT_ACK_WAIT_S,
        max_deliver=-1,
        deliver_policy=DeliverPolicy.ALL,
        max_ack_pending=10_000,
    )


def sampler_consumer() -> ConsumerConfig:
    return ConsumerConfig(
        durable_name=SAMPLER_CONSUMER,
        ack_policy=AckPolicy.EXPLICIT,
        ack_wait=TRAFFIC_ACK_WAIT_S,
        max_deliver=5,
        deliver_policy=DeliverPolicy.ALL,
        max_ack_pending=10_000,
    )


def sampler_spans_consumer() -> ConsumerConfig:
    """The sampler's consumer of ``traffic.spans``: a message stays unacknowledged while its spans wait
    to be assembled (the sampler reports progress), so ``max_ack_pending`` bounds what is in flight;
    a delivery that keeps failing is retried with a growing delay up to ``max_deliver`` times."""
    return ConsumerConfig(
        durable_name=SAMPLER_SPANS_CONSUMER,
        ack_policy=AckPolicy.EXPLICIT,
        ack_wait=TRAFFIC_SPANS_ACK_WAIT_S,
        max_deliver=TRAFFIC_SPANS_MAX_DELIVER,
        deliver_policy=DeliverPolicy.ALL,
        max_ack_pending=20_000,
    )


def consumer_configs(topology: Topology) -> dict[str, ConsumerConfig]:
    """Stream name -> its durable consumer."""
    return {
        topology.eval_tasks_stream: eval_workers_consumer(),
        topology.eval_results_stream: coordinator_results_consumer(),
        topology.traffic_stream: sampler_consumer(),
        topology.traffic_spans_stream: sampler_spans_consumer(),
    }


STORE_FAILED = 10049  # JetStream's "error creating store for stream": transient on a loaded server
STORE_RETRY_DELAYS_S = (0.2, 0.5, 1.0)


async def _add_stream(js: JetStreamContext, config: StreamConfig) -> None:
    """``add_stream``, retried a few times when the server could not create the stream's store.

    nats-server reports any failure to set up a stream's files with that one fixed sentence (the
    cause goes to its own log only); it was seen once creating a brand-new stream on a machine
    under heavy load, and a second attempt succeeds. Other errors are raised at once."""
    for delay in (*STORE_RETRY_DELAYS_S, None):
        try:
            await js.add_stream(config)
            return
        except ServerError as exc:
            if exc.err_code != STORE_FAILED or delay is None:
                raise
            log.warning("creating stream %s failed (%s), retrying", config.name, exc.description)
            await asyncio.sleep(delay)


async def declare(js: JetStreamContext, topology: Topology) -> None:
    """Create (or update) every stream, durable consumer and KV bucket. Idempotent."""
    for config in stream_configs(topology):
        try:
            await js.stream_info(config.name or "")
            await js.update_stream(config)
        except NotFoundError:
            await _add_stream(js, config)
    for stream, consumer in consumer_configs(topology).items():
        await js.add_consumer(stream, consumer)
    await js.create_key_value(target_throttle_bucket(topology))  # idempotent for an equal config


async def declare_at(nats_url: str, topology: Topology) -> None:
    nc = await nats.connect(nats_url, connect_timeout=5, max_reconnect_attempts=1)
    try:
        await declare(nc.jetstream(), topology)
    finally:
        await nc.close()
