"""JetStream calls that ride out a stream leader election (one helper for every publisher).

On a cluster, an R3 stream whose leader dies has no leader for 4.7-7.9 s (nats-server's election
timeout; measured on this machine). Meanwhile a publish raises ``NoStreamResponseError`` or times
out, a management call (``add_consumer``, ``stream_info``) can time out, and a new consumer's first
fetch can answer 503. Each of those is retried here, with short tries, until ``budget_s`` (12 s by
default) has passed; a publish is retried with the same ``Nats-Msg-Id``, so a try that the old
leader stored after all is dropped as a duplicate by the new one (``PubAck.duplicate``) — nothing is
stored twice. Errors that another try cannot mend (a bad request, a stream that does not exist) are
raised at once.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

import nats.errors
from nats.js import JetStreamContext
from nats.js.api import PubAck
from nats.js.errors import APIError, ServiceUnavailableError

log = logging.getLogger(__name__)

T = TypeVar("T")

ELECTION_BUDGET_S = 12.0
"""Longer than the slowest election measured here (7.9 s), with room for the first failed try."""
TRY_TIMEOUT_S = 2.5
FIRST_PAUSE_S = 0.1
MAX_PAUSE_S = 1.0


def passes_with_election(exc: BaseException) -> bool:
    """Is ``exc`` what a JetStream call raises while its stream has no leader (so worth retrying)?"""
    if isinstance(exc, APIError):
        return isinstance(exc, ServiceUnavailableError) or exc.code == 503
    return isinstance(exc, nats.errors.Error | TimeoutError)


async def through_election(
    call: Callable[[float], Awaitable[T]], *, what: str, budget_s: float = ELECTION_BUDGET_S
) -> T:
    """``await call(try_timeout)`` until it succeeds, retrying what :func:`passes_with_election`
    until ``budget_s`` is spent; then the last error is raised."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + budget_s
    pause = FIRST_PAUSE_S
    tries = 0
    while True:
        tries += 1
        remaining = deadline - loop.time()
        try:
            return await call(max(0.1, min(TRY_TIMEOUT_S, remaining)))
        except Exception as exc:
            if not passes_with_election(exc) or loop.time() + pause >= deadline:
                raise
            if tries == 1:
                log.warning(
                    "jetstream call failed, retrying through a leader election",
                    extra={"call": what, "error": f"{type(exc).__name__}: {exc}", "budget_s": budget_s},
                )
        await asyncio.sleep(pause)  # a back-off between tries, not a wait for an event
        pause = min(pause * 2, MAX_PAUSE_S)


async def publish_once(
    js: JetStreamContext,
    subject: str,
    payload: bytes,
    *,
    msg_id: str,
    stream: str,
    budget_s: float = ELECTION_BUDGET_S,
    headers: dict[str, str] | None = None,
) -> PubAck:
    """Publish under ``Nats-Msg-Id = msg_id`` (with ``headers`` besides) and return the PubAck
    (``duplicate=True`` when the stream already had it), retrying through a leader election."""
    sent = {**(headers or {}), "Nats-Msg-Id": msg_id}

    async def attempt(try_timeout_s: float) -> PubAck:
        return await js.publish(subject, payload, timeout=try_timeout_s, stream=stream, headers=sent)

    return await through_election(attempt, what=f"publish {subject}", budget_s=budget_s)
