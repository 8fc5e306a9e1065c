"""ACKs sent together: many deliveries acknowledged with one server confirmation, not one each.

:func:`~shared.messaging.acks.settle` confirms every ACK with a request and its reply: two messages
and a future per delivery, awaited one by one. :class:`AckPipeline` gathers the ACKs asked for in
the same turn of the event loop; it sends them fire-and-forget and the last of each consumer's group
as a request. JetStream applies a consumer's acknowledgements in the order they arrive from one
connection, so the reply to the last one means that every ACK sent before it was applied. Each
``ack`` returns once its group is confirmed (or, as with ``settle``, once the confirmation timed out:
the work is durable and idempotent, the worst case is a redelivery that changes nothing).

The rule is unchanged: a caller ACKs only after its work is durable; the pipeline only shares the
round trip.
"""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict

import nats.errors
from nats.aio.msg import Msg

from shared.messaging.acks import CONFIRM_TIMEOUT_S, settle

log = logging.getLogger(__name__)


def _consumer_of(msg: Msg) -> tuple[int, str]:
    """The connection and consumer (``$JS.ACK.<stream>.<consumer>``) an ACK goes to."""
    reply = msg.reply or ""
    return id(msg._client), ".".join(reply.split(".", 4)[:4])


class AckPipeline:
    """ACK deliveries in groups: ``await pipeline.ack(msg)`` from as many tasks as finish together."""

    def __init__(self, timeout_s: float = CONFIRM_TIMEOUT_S) -> None:
        self._timeout_s = timeout_s
        self._queued: list[tuple[Msg, asyncio.Future[bool]]] = []
        self._scheduled = False
        self._sending: set[asyncio.Task[None]] = set()
        self.confirmations = 0
        """Confirmed round trips so far (ACKs / confirmations is the grouping achieved)."""

    async def ack(self, msg: Msg) -> bool:
        """ACK ``msg``; True once JetStream confirmed its group, False if the confirmation timed out."""
        if not msg.reply:
            raise ValueError("cannot ack a message without a reply subject (not from JetStream)")
        loop = asyncio.get_running_loop()
        done: asyncio.Future[bool] = loop.create_future()
        self._queued.append((msg, done))
        if not self._scheduled:
            self._scheduled = True
            loop.call_soon(self._flush)
        return await done

    async def ack_all(self, msgs: list[Msg]) -> None:
        """ACK every message of ``msgs`` (one confirmation per consumer)."""
        await asyncio.gather(*(self.ack(msg) for msg in msgs))

    def _flush(self) -> None:
        self._scheduled = False
        queued, self._queued = self._queued, []
        groups: dict[tuple[int, str], list[tuple[Msg, asyncio.Future[bool]]]] = defaultdict(list)
        for entry in queued:
            groups[_consumer_of(entry[0])].append(entry)
        for group in groups.values():
            sending = asyncio.get_running_loop().create_task(self._send(group), name="ack-pipeline")
            self._sending.add(sending)
            sending.add_done_callback(self._sending.discard)

    async def _send(self, group: list[tuple[Msg, asyncio.Future[bool]]]) -> None:
        *rest, (last, _) = group
        confirmed = False
        try:
            for msg, _ in rest:
                if not msg._ackd:
                    await msg._client.publish(msg.reply, Msg.Ack.Ack)  # fire-and-forget, in order
                    msg._ackd = True
            confirmed = await settle(last, "ack", self._timeout_s)
            self.confirmations += 1
        except nats.errors.Error as exc:  # connection closing: JetStream redelivers what was not applied
            log.warning("ACK of %d deliveries failed: %s", len(group), exc)
        finally:
            for _, done in group:
                if not done.done():
                    done.set_result(confirmed)


__all__ = ["AckPipeline"]
