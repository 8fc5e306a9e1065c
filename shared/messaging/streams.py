"""JetStream streams and durable consumers, declared once by the launcher (and by test fixtures).

Services bind to these by name; the consumer configuration here is the single source of truth,
so a subscriber's ``ConsumerConfig`` and the declared one never disagree.

``replicas`` (``NATS_STREAM_REPLICAS``: 1 on one server, 3 on a cluster) is given to every stream,
consumer and KV bucket; each management call rides out a leader election
(:func:`~shared.messaging.election.through_election`).
"""

from __future__ import annotations

import asyncio
import logging
from functools import partial

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

from shared.messaging.election import through_election
from yardstick.api.nats_servers import nats_servers
from yardstick.api.topology import (
    COORDINATOR_RESULTS_CONSUMER,
    EVAL_WORKERS_CONSUMER,
    SAMPLER_SPANS_CONSUMER,
    Topology,
)

log = logging.getLogger(__name__)

DUPLICATE_WINDOW_S = 120.0
EVAL_TASK_ACK_WAIT_S = 30.0
EVAL_TASK_MAX_DELIVER = 4
RESULT_ACK_WAIT_S = 30.0
TRAFFIC_SPANS_ACK_WAIT_S = 60.0
TRAFFIC_SPANS_MAX_DELIVER = 20
TRAFFIC_MAX_AGE_S = 7 * 24 * 3600.0
THROTTLE_STATE_TTL_S = 3600.0
"""A target's pause and rate schedule are forgotten an hour after their last change."""
EVAL_CREDITS_TTL_S = 3600.0
"""An experiment's credit grant vanishes an hour after its last write (the coordinator rewrites a
live one well before, and deletes it when the experiment ends)."""


def stream_configs(topology: Topology, replicas: int = 1) -> list[StreamConfig]:
    return [
        StreamConfig(
            num_replicas=replicas,
            name=topology.eval_tasks_stream,
            subjects=[topology.eval_task],
            retention=RetentionPolicy.WORK_QUEUE,
            storage=StorageType.FILE,
            duplicate_window=DUPLICATE_WINDOW_S,
        ),
        StreamConfig(
            num_replicas=replicas,
            name=topology.eval_results_stream,
            subjects=[topology.eval_result],
            retention=RetentionPolicy.WORK_QUEUE,
            storage=StorageType.FILE,
            duplicate_window=DUPLICATE_WINDOW_S,
        ),
        StreamConfig(
            num_replicas=replicas,
            name=topology.traffic_spans_stream,
            subjects=[topology.traffic_spans],
            retention=RetentionPolicy.LIMITS,
            storage=StorageType.FILE,
            max_age=TRAFFIC_MAX_AGE_S,
            duplicate_window=DUPLICATE_WINDOW_S,
        ),
        StreamConfig(
            num_replicas=replicas,
            name=topology.alerts_stream,
            subjects=[topology.alerts],
            retention=RetentionPolicy.LIMITS,
            storage=StorageType.FILE,
            max_age=30 * 24 * 3600.0,
        ),
    ]


def target_throttle_bucket(topology: Topology, replicas: int = 1) -> KeyValueConfig:
    """The KV bucket of ``services/evaluator/throttling/board.py``: one key per target identity."""
    return KeyValueConfig(
        bucket=topology.target_throttle_bucket,
        history=1,
        ttl=THROTTLE_STATE_TTL_S,
        storage=StorageType.MEMORY,
        replicas=replicas,
    )


def eval_credits_bucket(topology: Topology, replicas: int = 1) -> KeyValueConfig:
    """The KV bucket of worker-held credits: one :class:`~shared.contracts.credits.CreditGrant` per
    running experiment (``services/coordinator/experiments/dispatch/credit_grants.py`` writes it)."""
    return KeyValueConfig(
        bucket=topology.eval_credits_bucket,
        history=1,
        ttl=EVAL_CREDITS_TTL_S,
        storage=StorageType.MEMORY,
        replicas=replicas,
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


def consumer_configs(topology: Topology, replicas: int = 1) -> dict[str, ConsumerConfig]:
    """Stream name -> its durable consumer, with as many replicas as its stream."""
    consumers = {
        topology.eval_tasks_stream: eval_workers_consumer(),
        topology.eval_results_stream: coordinator_results_consumer(),
        topology.traffic_spans_stream: sampler_spans_consumer(),
    }
    for consumer in consumers.values():
        consumer.num_replicas = replicas
    return consumers


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


async def _declare_stream(js: JetStreamContext, config: StreamConfig) -> None:
    try:
        await js.stream_info(config.name or "")
        await js.update_stream(config)
    except NotFoundError:
        await _add_stream(js, config)


async def declare(js: JetStreamContext, topology: Topology, replicas: int = 1) -> None:
    """Create (or update) every stream, durable consumer and KV bucket. Idempotent."""
    for config in stream_configs(topology, replicas):
        await through_election(partial(_stream_try, js, config), what=f"declare {config.name}")
    for stream, consumer in consumer_configs(topology, replicas).items():
        await through_election(partial(_consumer_try, js, stream, consumer), what=f"consumer on {stream}")
    for bucket in (target_throttle_bucket(topology, replicas), eval_credits_bucket(topology, replicas)):
        await through_election(partial(_bucket_try, js, bucket), what=f"bucket {bucket.bucket}")


async def _stream_try(js: JetStreamContext, config: StreamConfig, _try_timeout_s: float) -> None:
    await _declare_stream(js, config)


async def _consumer_try(
    js: JetStreamContext, stream: str, consumer: ConsumerConfig, try_timeout_s: float
) -> None:
    await js.add_consumer(stream, consumer, timeout=try_timeout_s)


async def _bucket_try(js: JetStreamContext, bucket: KeyValueConfig, _try_timeout_s: float) -> None:
    await js.create_key_value(bucket)  # idempotent for an equal config


async def declare_at(nats_url: str, topology: Topology, replicas: int = 1) -> None:
    """:func:`declare` over a connection of its own to ``nats_url`` (one URL or a comma-separated list)."""

    async def on_error(exc: Exception) -> None:  # nats-py's default prints a traceback per server
        log.info("declaring streams: %s: %s (trying the next server)", type(exc).__name__, exc)

    nc = await nats.connect(  # in the given order: a one-off connection spreads no load
        servers=nats_servers(nats_url),
        connect_timeout=5,
        max_reconnect_attempts=1,
        dont_randomize=True,
        error_cb=on_error,
    )
    try:
        await declare(nc.jetstream(), topology, replicas)
    finally:
        await nc.close()
