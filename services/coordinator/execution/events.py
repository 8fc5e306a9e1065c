"""Publishes an experiment's progress on ``<ns>.experiment.events.<id>`` (core NATS, for the SSE
endpoint and ``yardstick run``; nothing depends on every event arriving)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg

from shared.contracts.experiment_events import EventKind, ExperimentEvent
from shared.contracts.topology import Topology
from shared.db.models import Experiment


async def publish_event(
    nc: NatsClient,
    topology: Topology,
    experiment_id: str,
    kind: EventKind,
    *,
    status: str,
    total: int,
    done: int,
    errors: int,
    cache_hits: int = 0,
) -> None:
    event = ExperimentEvent(
        experiment_id=experiment_id,
        kind=kind,
        status=status,
        total=total,
        done=done,
        errors=errors,
        cache_hits=cache_hits,
    )
    await nc.publish(topology.experiment_events(experiment_id), event.model_dump_json().encode())


TERMINAL = frozenset({"completed", "failed", "cancelled"})


async def event_stream(nc: NatsClient, topology: Topology, experiment: Experiment) -> AsyncIterator[bytes]:
    """Server-sent events for one experiment: its state now, then each published event until a
    terminal one; a comment every 15 s keeps proxies from closing the connection."""
    queue: asyncio.Queue[bytes] = asyncio.Queue()

    async def enqueue(msg: Msg) -> None:
        queue.put_nowait(msg.data)

    sub = await nc.subscribe(topology.experiment_events(experiment.id), cb=enqueue)
    first = ExperimentEvent(
        experiment_id=experiment.id,
        kind=experiment.status if experiment.status in TERMINAL else "started",  # type: ignore[arg-type]
        status=experiment.status,
        total=experiment.total,
        done=experiment.done,
        errors=experiment.errors,
        cache_hits=experiment.cache_hits,
    )
    try:
        yield f"event: {first.kind}\ndata: {first.model_dump_json()}\n\n".encode()
        if experiment.status in TERMINAL:
            return
        while True:
            try:
                data = await asyncio.wait_for(queue.get(), timeout=15.0)
            except TimeoutError:
                yield b": keep-alive\n\n"
                continue
            event = ExperimentEvent.model_validate_json(data)
            yield f"event: {event.kind}\ndata: {data.decode()}\n\n".encode()
            if event.kind in TERMINAL:
                return
    finally:
        await sub.unsubscribe()
