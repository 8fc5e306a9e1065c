"""Publishing the accepted spans to the ``traffic.spans`` stream, and waiting for JetStream.

The receiver answers 200 only once every message of the request has its PubAck, so a 200 means
stored. Each message carries ``Nats-Msg-Id`` (a digest of project and spans): an exporter that
retries after a 503, or after a lost answer, is deduplicated inside the stream's window. When NATS
is away the publish is not attempted (nats-py would buffer it while reconnecting): 503 at once.
"""

from __future__ import annotations

import asyncio
import logging

import nats.errors
from nats.aio.client import Client as NatsClient

from services.ingest.batching import EncodedBatch
from services.ingest.errors import Unavailable
from shared.messaging import publish_once
from yardstick.api.nats_connection import ConnectionHealth
from yardstick.api.topology import Topology

log = logging.getLogger(__name__)

HEADROOM_BYTES = 4096  # headers (Nats-Msg-Id) and protocol framing


class SpanPublisher:
    def __init__(
        self, nc: NatsClient, topology: Topology, health: ConnectionHealth, timeout_s: float = 5.0
    ) -> None:
        self._js = nc.jetstream()
        self._nc = nc
        self._topology = topology
        self._health = health
        self._timeout_s = timeout_s
        self.duplicates = 0

    @property
    def max_message_bytes(self) -> int:
        """The largest payload the server accepts, less room for headers."""
        return max(self._nc.max_payload - HEADROOM_BYTES, 1024)

    def ensure_connected(self) -> None:
        if not self._health.connected:
            raise Unavailable("NATS is not connected, nothing was stored: retry after the Retry-After delay")

    async def publish(self, batches: list[EncodedBatch]) -> None:
        """Every batch stored (or already stored), or :class:`Unavailable`."""
        self.ensure_connected()
        try:
            acks = await asyncio.gather(*(self._publish(batch) for batch in batches))
        except (TimeoutError, nats.errors.Error, OSError) as exc:
            log.warning(
                "publishing spans failed",
                extra={"error": f"{type(exc).__name__}: {exc}", "batches": len(batches)},
            )
            raise Unavailable(
                f"JetStream did not confirm the spans ({type(exc).__name__}): "
                "retry after the Retry-After delay"
            ) from exc
        self.duplicates += sum(acks)

    async def _publish(self, batch: EncodedBatch) -> bool:
        ack = await publish_once(  # retried within the timeout: a 503 after it (the exporter retries)
            self._js,
            self._topology.traffic_spans,
            batch.payload,
            msg_id=batch.msg_id,
            stream=self._topology.traffic_spans_stream,
            budget_s=self._timeout_s,
        )
        return bool(ack.duplicate)
