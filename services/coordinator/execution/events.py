"""Publishes an experiment's progress on ``<ns>.experiment.events.<id>`` (core NATS, for the SSE
endpoint and ``yardstick run``; nothing depends on every event arriving)."""

from __future__ import annotations

from nats.aio.client import Client as NatsClient

from shared.contracts.experiment_events import EventKind, ExperimentEvent
from shared.contracts.topology import Topology


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
) -> None:
    event = ExperimentEvent(
        experiment_id=experiment_id, kind=kind, status=status, total=total, done=done, errors=errors
    )
    await nc.publish(topology.experiment_events(experiment_id), event.model_dump_json().encode())
