"""Publishes an experiment's progress on ``<ns>.experiment.events.<id>`` (core NATS, for the SSE
endpoint and ``yardstick run``; nothing depends on every event arriving)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.coordinator.experiments.store.experiments import get_experiment
from yardstick.api.experiment_events import EventKind, ExperimentCounts, ExperimentEvent
from yardstick.api.experiment_status import TERMINAL_STATUSES, ExperimentStatus
from yardstick.api.nats_interest import subscriptions_registered
from yardstick.api.topology import Topology


async def publish_event(
    nc: NatsClient,
    topology: Topology,
    experiment_id: str,
    kind: EventKind,
    status: ExperimentStatus,
    counts: ExperimentCounts,
) -> None:
    """The experiment's ``kind`` event with every counter of ``counts`` (one place names them)."""
    event = ExperimentEvent(
        experiment_id=experiment_id,
        kind=kind,
        status=status,
        total=counts.total,
        done=counts.done,
        errors=counts.errors,
        cache_hits=counts.cache_hits,
        throttled=counts.throttled,
        target_concurrency=counts.target_concurrency,
    )
    await nc.publish(topology.experiment_events(experiment_id), event.model_dump_json().encode())


async def event_stream(
    nc: NatsClient, topology: Topology, experiment_id: str, sessions: async_sessionmaker[AsyncSession]
) -> AsyncIterator[bytes]:
    """Server-sent events for one experiment: its state now, then each published event until a
    terminal one; a comment every 15 s keeps proxies from closing the connection.

    The state is read after the subscription is live on the server: read before, an experiment
    that finished in between would never send its terminal event to this stream, which would then
    wait forever."""
    queue: asyncio.Queue[bytes] = asyncio.Queue()

    async def enqueue(msg: Msg) -> None:
        queue.put_nowait(msg.data)

    sub = await nc.subscribe(topology.experiment_events(experiment_id), cb=enqueue)
    try:
        await subscriptions_registered(nc)
        async with sessions() as session:
            experiment = await get_experiment(session, experiment_id)
        first = ExperimentEvent(
            experiment_id=experiment.id,
            kind=experiment.status if experiment.status in TERMINAL_STATUSES else "started",  # type: ignore[arg-type]
            status=experiment.status,
            total=experiment.total,
            done=experiment.done,
            errors=experiment.errors,
            cache_hits=experiment.cache_hits,
            throttled=experiment.throttled,
            target_concurrency=experiment.target_concurrency,
        )
        yield f"event: {first.kind}\ndata: {first.model_dump_json()}\n\n".encode()
        if experiment.status in TERMINAL_STATUSES:
            return
        while True:
            try:
                data = await asyncio.wait_for(queue.get(), timeout=15.0)
            except TimeoutError:
                yield b": keep-alive\n\n"
                continue
            event = ExperimentEvent.model_validate_json(data)
            yield f"event: {event.kind}\ndata: {data.decode()}\n\n".encode()
            if event.kind in TERMINAL_STATUSES:
                return
    finally:
        await sub.unsubscribe()
