"""Acknowledgements the server has confirmed: ACK and TERM sent as requests.

nats-py's ``msg.ack()`` and ``msg.term()`` are fire-and-forget publishes: they return before the
server has applied them, so a worker that closes its connection right after, or anyone reading the
consumer's state, may still find the message pending (and JetStream redelivers it after
``ack_wait``). JetStream answers an acknowledgement that carries a reply subject once it has
applied it; ``msg.ack_sync()`` does this for ACK only, :func:`settle` for both.

A confirmation that does not come in time is logged, not raised: the work is already durable and
idempotent, so the worst case is one redelivery that changes nothing.
"""

from __future__ import annotations

import logging
from typing import Literal

import nats.errors
from nats.aio.msg import Msg

log = logging.getLogger(__name__)

CONFIRM_TIMEOUT_S = 5.0

_PAYLOADS: dict[str, bytes] = {"ack": Msg.Ack.Ack, "term": Msg.Ack.Term}


async def settle(msg: Msg, kind: Literal["ack", "term"], timeout_s: float = CONFIRM_TIMEOUT_S) -> bool:
    """Send ``kind`` for ``msg`` and wait until JetStream has applied it; False if unconfirmed."""
    if not msg.reply:
        raise ValueError(f"cannot {kind} a message without a reply subject (not from JetStream)")
    try:
        # Msg has no public request-style TERM; its client is the connection it arrived on.
        await msg._client.request(msg.reply, _PAYLOADS[kind], timeout=timeout_s)
    except (TimeoutError, nats.errors.TimeoutError, nats.errors.NoRespondersError) as exc:
        log.warning(
            "%s not confirmed within %.1fs (%s); JetStream may redeliver the message",
            kind,
            timeout_s,
            type(exc).__name__,
            extra={"subject": msg.subject},
        )
        return False
    msg._ackd = True
    return True


__all__ = ["CONFIRM_TIMEOUT_S", "settle"]
