"""Publishing completed chat turns to the ``traffic.agent`` JetStream stream.

A turn is published before the customer gets the reply, with ``Nats-Msg-Id`` =
``<conversation_id>:<turn_index>`` so a repeated publish is a no-op. When NATS is away the turn goes
to a Postgres outbox instead (:mod:`services.agent.traffic_outbox`), drained when NATS is back.
"""

from __future__ import annotations

import logging
from typing import Protocol

from faststream.nats import NatsBroker

from shared.contracts.agent_messages import TrafficTurn
from shared.contracts.topology import Topology
from shared.messaging import through_election

log = logging.getLogger(__name__)


class TrafficPublisher(Protocol):
    async def publish(self, turn: TrafficTurn) -> None: ...


class JetStreamTrafficPublisher:
    """Publishes each turn once per ``Nats-Msg-Id`` (``<conversation_id>:<turn_index>``)."""

    def __init__(self, broker: NatsBroker, topology: Topology) -> None:
        self._broker = broker
        self._topology = topology

    async def publish(self, turn: TrafficTurn) -> None:
        async def attempt(try_timeout_s: float) -> None:
            await self._broker.publish(
                turn,
                self._topology.traffic_agent,
                stream=self._topology.traffic_stream,
                headers={"Nats-Msg-Id": turn.msg_id},
                timeout=try_timeout_s,
            )

        await through_election(attempt, what=f"publish {self._topology.traffic_agent}")
