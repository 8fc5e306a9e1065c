"""Publishing completed chat turns to the ``traffic.agent`` JetStream stream.

A turn is published before the customer gets the reply. If that fails (NATS restarting, a lost
PubAck), :class:`RetryingTrafficPublisher` keeps retrying in the background with backoff instead
of dropping the turn; the ``Nats-Msg-Id`` makes a retry of a publish that did land a no-op.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Protocol

from faststream.nats import NatsBroker

from shared.contracts.agent_messages import TrafficTurn
from shared.contracts.topology import Topology

log = logging.getLogger(__name__)

RETRY_DELAYS_S = (0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0)  # about a minute of outage is absorbed


class TrafficPublisher(Protocol):
    async def publish(self, turn: TrafficTurn) -> None: ...


class JetStreamTrafficPublisher:
    """Publishes each turn once per ``Nats-Msg-Id`` (``<conversation_id>:<turn_index>``)."""

    def __init__(self, broker: NatsBroker, topology: Topology) -> None:
        self._broker = broker
        self._topology = topology

    async def publish(self, turn: TrafficTurn) -> None:
        await self._broker.publish(
            turn,
            self._topology.traffic_agent,
            stream=self._topology.traffic_stream,
            headers={"Nats-Msg-Id": turn.msg_id},
        )


class RetryingTrafficPublisher:
    """One attempt inline; after a failure, retries in the background (``RETRY_DELAYS_S``).

    ``publish`` never raises: a turn that still fails after every retry is logged as dropped.
    ``aclose`` waits for the retries in flight (up to ``timeout_s``), then gives up on the rest.
    """

    def __init__(self, inner: TrafficPublisher, retry_delays_s: Sequence[float] = RETRY_DELAYS_S) -> None:
        self._inner = inner
        self._delays = tuple(retry_delays_s)
        self._retrying: set[asyncio.Task[None]] = set()

    @property
    def retrying(self) -> int:
        """Turns waiting for a retry."""
        return len(self._retrying)

    async def publish(self, turn: TrafficTurn) -> None:
        try:
            await self._inner.publish(turn)
            return
        except Exception as exc:
            log.warning(
                "publishing traffic turn failed (%s: %s); retrying in the background",
                type(exc).__name__,
                exc,
                extra={"msg_id": turn.msg_id},
            )
        task = asyncio.create_task(self._retry(turn), name=f"traffic-retry-{turn.msg_id}")
        self._retrying.add(task)
        task.add_done_callback(self._retrying.discard)

    async def _retry(self, turn: TrafficTurn) -> None:
        for attempt, delay in enumerate(self._delays, start=2):
            await asyncio.sleep(delay)
            try:
                await self._inner.publish(turn)
            except Exception as exc:
                log.warning(
                    "traffic turn attempt %d failed: %s: %s",
                    attempt,
                    type(exc).__name__,
                    exc,
                    extra={"msg_id": turn.msg_id},
                )
                continue
            log.info("traffic turn published on attempt %d", attempt, extra={"msg_id": turn.msg_id})
            return
        log.error(
            "traffic turn dropped after %d attempts: the sampler will never see it",
            len(self._delays) + 1,
            extra={"msg_id": turn.msg_id},
        )

    async def aclose(self, timeout_s: float = 10.0) -> None:
        if not self._retrying:
            return
        _, pending = await asyncio.wait(set(self._retrying), timeout=timeout_s)
        for task in pending:
            task.cancel()
        if pending:
            log.error("shutting down with %d traffic turns unpublished", len(pending))
