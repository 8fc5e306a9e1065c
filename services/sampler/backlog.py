"""The spans not stored yet, as JetStream counts them for the samplers' shared durable consumer.

``pending`` (num_pending) are messages no sampler has fetched yet; ``ack_pending`` (num_ack_pending)
are fetched by some sampler and not acknowledged yet (their traces assembling or being stored). Both
are counts of span messages (each up to an export request's spans), for every sampler together. A
backlog that stays large and grows means the samplers store slower than the ingest accepts: start
more (``YARDSTICK_SAMPLERS`` in the local stack).
"""

from __future__ import annotations

import logging

import nats.errors
from nats.js import JetStreamContext
from pydantic import BaseModel, Field

log = logging.getLogger(__name__)

BACKLOG_TIMEOUT_S = 1.0


class SpansBacklog(BaseModel, frozen=True):
    pending: int = Field(description="Span messages no sampler has fetched yet (num_pending)")
    ack_pending: int = Field(description="Fetched and not acknowledged yet (num_ack_pending)")
    messages: int = Field(description="pending + ack_pending: span messages not stored yet")


async def spans_backlog(js: JetStreamContext, stream: str, consumer: str) -> SpansBacklog | None:
    """The consumer's backlog now; None when the server cannot say within ``BACKLOG_TIMEOUT_S``."""
    try:
        info = await js.consumer_info(stream, consumer, timeout=BACKLOG_TIMEOUT_S)
    except (nats.errors.Error, TimeoutError) as exc:
        log.info("spans backlog unavailable: %r", exc)
        return None
    pending, ack_pending = info.num_pending or 0, info.num_ack_pending or 0
    return SpansBacklog(pending=pending, ack_pending=ack_pending, messages=pending + ack_pending)
